/** `@colliepwa/shared`: the Collie-to-phone contract. No Node or DOM imports. */
export { STRINGS, WORDS } from "./strings.ts";
export * from "./api.ts";
export { API_ERRORS, type ApiErrorCode } from "./errors.ts";
export { compareConversations, isWaiting } from "./order.ts";
export { answerOutcome, ANSWER_CODES, type AnswerOutcome, type OutcomeView, type TapReply } from "./outcomes.ts";
export { ACT_LIMITS, mayAct, phoneActs, PHONE_ROUTES, phonePath, type PhoneRouteName, type PhoneRouteParams } from "./phone-routes.ts";
export type {
  ActionReplyBody, CrewHelloReply, CrewJoinReply, CrewJoinRequest, PageQuery, PairedReply, PairRequest, PhoneActionName, PhoneBody,
  PhoneContract, PhoneQuery, PhoneReply,
} from "./phone-types.ts";
