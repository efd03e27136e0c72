/**
 * Decisions: the dcg design's Operations, chosen with their cell. Cards are instance ids, cells are
 * absolute (y*5+x). Produced only by legal().
 */
export type Decision =
  | { readonly kind: "strategyMove"; readonly card: number; readonly cell: number }
  | { readonly kind: "strategyConfirm" }
  | { readonly kind: "drawOrCharge"; readonly charge: boolean }
  | { readonly kind: "summon"; readonly card: number; readonly cell: number }
  | { readonly kind: "feint"; readonly card: number; readonly cell: number }
  | { readonly kind: "moveDeclare"; readonly card: number; readonly cell: number }
  | { readonly kind: "attack"; readonly card: number; readonly cell: number }
  | { readonly kind: "direct"; readonly card: number }
  | { readonly kind: "turnFinish" }
  | { readonly kind: "reactNone" }
  | { readonly kind: "reactSummon"; readonly card: number; readonly cell: number }
  | { readonly kind: "reactFeint"; readonly card: number; readonly cell: number }
  /** cell -1 cancels the move at no cost. */
  | { readonly kind: "moveRetry"; readonly cell: number }
  | { readonly kind: "feintDeclare" }
  | { readonly kind: "feintPass" }
  /** BattleForceFinishCommand: the actor leaves or times out and loses (the expectation's default). */
  | { readonly kind: "forceFinish" };

export type DecisionKind = Decision["kind"];
