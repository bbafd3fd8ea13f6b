/**
 * What the gallery agent (gallery-agent.ts) shows, shared with the audit journey (audit.spec.ts):
 * its conversations' ids, titles and the texts a journey looks for.
 */
const longOutput = Array.from({ length: 120 }, (_, i) =>
  `${String(i + 1).padStart(3, "0")}  2026-12-0${1 + (i % 9)} 0${i % 10}:${String((i * 7) % 60).padStart(2, "0")}  scan  Lyon hub  parcel 5521 held, waiting for the carrier's next pickup window`).join("\n");

export const GALLERY = {
  agent: "gallery",
  items: { pane: "items", title: "Maria Lopez", longOutput, lastLine: "120  " },
  permission: { pane: "ask-permission", title: "Refund for Maria" },
  choice: { pane: "ask-choice", title: "Replacement extras" },
  text: { pane: "ask-text", title: "A note for Jonas" },
  form: { pane: "ask-form", title: "Exchange for Jonas" },
  working: { pane: "working", title: "Invoice export" },
  rtl: {
    pane: "rtl",
    title: "שאלה על הזמנה 5521",
    subtitle: "דניאל כהן · ממתין לתשובה",
    question: "שלום, איפה החבילה שלי? הזמנתי ב-3 בדצמבר (הזמנה 5521).",
    reply: "החבילה נסרקה לאחרונה בליון ביום שלישי. Maria Lopez מהצוות שלנו בודקת את זה עכשיו!",
    arabic: "مرحبًا! الطرد رقم 5521 في الطريق، وسيصل خلال يومين.",
  },
  long: {
    pane: "long-title",
    title: "Replacement for the espresso machine that arrived with a cracked water tank and a missing portafilter, order 7781",
    subtitle: "A subtitle that is also far longer than the width of any phone held upright, to see where it goes",
  },
} as const;
