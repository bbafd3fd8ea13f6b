/** The cursor at the end of a growing item (P-19); it goes when the final text arrives. */
export function Cursor() {
  return <span className="cursor" data-cursor="" aria-hidden="true" />;
}
