/**
 * JSON.parse for the text of a file a person wrote: a leading byte-order mark (U+FEFF, which some
 * editors put at the start of every UTF-8 file they save) is not part of the JSON and is skipped.
 * Anything else JSON.parse refuses is refused the same way.
 */
export function parseJsonText(text: string): unknown {
  return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
}
