/**
 * What a live table's channels may carry of its config (docs/live.md, "Events" and "Facilitators":
 * every channel carries only what its viewer may see).
 */

/**
 * A table's config as its channels send it (hello, and a view's copy of it): without a `board`
 * (the debug facilitator's starting position), which lists every seat's hidden cards: hands, books
 * in order, face-down feints. The view shows the position as its viewer may see it. The table's
 * creator got the config whole in the reply that made it; the game's own view keeps it for the
 * server's agents (a searcher re-deals the board's hidden cards from it, engine/dcg/determinize.ts).
 */
export function channelConfig<C>(config: C): C {
  if (typeof config !== "object" || config === null || !("board" in config)) return config;
  const { board: _hidden, ...rest } = config;
  return rest as C;
}

/** A view as a channel sends it: a config it carries (dcg's `cfg`) without its board (channelConfig). */
export function channelView<V>(view: V): V {
  if (typeof view !== "object" || view === null || !("cfg" in view)) return view;
  const cfg = channelConfig(view.cfg);
  return cfg === view.cfg ? view : { ...view, cfg };
}
