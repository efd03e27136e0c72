/**
 * The slice of an RL adapter a policy agent needs, declared here structurally so that agents/
 * never imports env/ (imports point engine <- agents <- env). env's GameAdapter satisfies
 * `actions` and `observation` as is; the caller adds the action-spec hash env computes.
 */
export interface PolicyActions<D = any, V = any> {
  readonly size: number;
  encode(view: V, decision: D): number;
}

export interface PolicyObservation<V = any> {
  readonly version: string;
  readonly size: number;
  /** Writes exactly `size` floats into out from offset 0, using only the view. */
  encode(view: V, out: Float32Array): void;
}

export interface PolicyAdapter<D = any, V = any> {
  readonly actions: PolicyActions<D, V>;
  readonly observation: PolicyObservation<V>;
}
