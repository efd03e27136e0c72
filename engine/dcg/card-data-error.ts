/** A problem in card, ability or book JSON; the message starts with the JSON path (and card id). */
export class CardDataError extends Error {}
