/**
 * npm run validate-cards -- <file or dir>... [--book-size N]
 *
 * Validates card-set files (a card set {cards?, books?}, a list of cards, or a list of books) against
 * docs/card-schema.json with Ajv, then with the engine's loader and the book rules. Prints every
 * problem as `file: path: message` (the path names the card or book id) and exits 1 if there is any.
 */
import { intArg, main, parseCli, UsageError, printUsage } from "./cli.ts";
import { checkCardFiles } from "./cards/check-card-files.ts";

const USAGE = "npm run validate-cards -- <file or dir>... [--book-size N]";

main(() => {
  const { values, positionals } = parseCli(USAGE, { "book-size": { type: "string" } });
  if (values.help) return printUsage(USAGE);
  if (positionals.length === 0) throw new UsageError(`name at least one file or directory\nusage: ${USAGE}`);
  const result = checkCardFiles(positionals, { bookSize: intArg(values["book-size"], "book-size", 20, 6, 40) });
  for (const p of result.problems) console.error(`${p.file}: ${p.path ? `${p.path}: ` : ""}${p.message}`);
  const summary = `${result.files} file(s), ${result.cards} card(s), ${result.books} book(s)`;
  if (result.problems.length > 0) {
    console.error(`${summary}: ${result.problems.length} problem(s)`);
    return 1;
  }
  console.log(`${summary}: ok`);
  return 0;
});
