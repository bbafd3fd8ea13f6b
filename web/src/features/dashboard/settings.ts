/** Settings kept on the device (P-4). */
const ONLY_NEEDS_YOU = "collie.onlyNeedsYou";

export function readOnlyNeedsYou(storage: Pick<Storage, "getItem"> = localStorage): boolean {
  try {
    return storage.getItem(ONLY_NEEDS_YOU) === "1";
  } catch {
    return false;
  }
}

export function writeOnlyNeedsYou(on: boolean, storage: Pick<Storage, "setItem"> = localStorage): void {
  try {
    storage.setItem(ONLY_NEEDS_YOU, on ? "1" : "0");
  } catch {
    // private mode: the setting lasts for this page only
  }
}
