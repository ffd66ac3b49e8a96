/**
 * The replica set of a run over `endpoint.replicas`: each replica's slots from its `/props`
 * (`--parallel auto`) or the `--parallel N` given for each, said in one line.
 *
 * @module
 */
import { chooseParallel, type Engine, ReplicaSet, safeUrl } from "../client/mod.ts";

/**
 * Builds the replica set of a run.
 *
 * @param engines One engine per replica, in the workflow's order.
 * @param parallel `auto` (each replica's slots) or the requests in flight per replica.
 * @param options Key, signal, and the callback told when a replica is left out.
 * @returns The set and the line saying each replica's slots.
 */
export async function replicaSetFor(
  engines: readonly Engine[],
  parallel: number | "auto",
  options: {
    apiKey?: string | undefined;
    signal?: AbortSignal | undefined;
    onExclude?: (url: string, live: number) => void;
  } = {},
): Promise<{ set: ReplicaSet; message: string }> {
  const slots: number[] = [];
  const said: string[] = [];
  for (const engine of engines) {
    if (parallel === "auto") {
      const choice = await chooseParallel(engine.url, {
        ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
        ...(options.signal !== undefined ? { signal: options.signal } : {}),
      });
      slots.push(choice.parallel);
      said.push(
        `${safeUrl(engine.url)} ${choice.parallel}${
          choice.source === "fallback" ? " (fallback)" : ""
        }`,
      );
    } else {
      slots.push(parallel);
      said.push(`${safeUrl(engine.url)} ${parallel}`);
    }
  }
  const set = new ReplicaSet(engines.map((engine, i) => ({ engine, slots: slots[i] as number })), {
    onExclude: (stats, live) => options.onExclude?.(stats.url, live),
  });
  return {
    set,
    message: `replicas: ${engines.length} servers, ${set.capacity} requests in flight (${
      said.join(", ")
    })`,
  };
}
