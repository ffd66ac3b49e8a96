/**
 * Serving the view: `Deno.serve` on 127.0.0.1 by default, GET and HEAD only, and — on a loopback
 * address — only requests whose `Host` names a loopback host, so a web page elsewhere cannot read
 * the runs through DNS rebinding.
 *
 * @module
 */
import { RunCatalog } from "./catalog.ts";
import { createViewApp } from "./app.ts";
import { StateSource } from "./states.ts";

/** Options for {@linkcode startView}. */
export interface ViewOptions {
  /** Port; 0 picks a free one. @default 8700 */
  port?: number;
  /** Address to bind. @default "127.0.0.1" */
  hostname?: string;
  /** The SQLite index (`""`: none). @default "runs/decibench.db" */
  dbPath?: string;
  /** The runs folder (`""`: none). @default "runs" */
  runsDir?: string;
  /** Folder of the vendored dataset, for the states. @default the vendored Typed Decisions */
  datasetDir?: string | undefined;
  /** Stops the server when aborted. @default undefined */
  signal?: AbortSignal;
}

/** A running view. */
export interface ViewServer {
  /** Base URL, e.g. `http://127.0.0.1:8700`. */
  url: string;
  /** Bound address. */
  hostname: string;
  /** Bound port. */
  port: number;
  /** Stops the server and closes the index. */
  close(): Promise<void>;
  /** Resolves when the server has stopped. */
  finished: Promise<void>;
}

const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

function isLoopback(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

function hostOf(header: string | null): string {
  if (!header) return "";
  const match = /^(\[[^\]]*\]|[^:]*)(?::\d+)?$/.exec(header.trim().toLowerCase());
  return match?.[1] ?? "";
}

/**
 * Starts the view.
 *
 * @param options Port, address, index, runs folder and dataset folder.
 * @returns The running server.
 * @throws {RangeError} When the port is not an integer in 0–65535.
 * @throws {Deno.errors.AddrInUse} When the port is taken.
 * @example
 * ```ts ignore
 * import { startView } from "./serve.ts";
 * const view = await startView({ port: 0 });
 * console.log(`open ${view.url}`);
 * await view.close();
 * ```
 */
export function startView(options: ViewOptions = {}): Promise<ViewServer> {
  const port = options.port ?? 8700;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(`Cannot start the view: port "${port}" is not an integer in 0-65535`);
  }
  const hostname = options.hostname ?? "127.0.0.1";
  const catalog = new RunCatalog({ dbPath: options.dbPath, runsDir: options.runsDir });
  const states = new StateSource({ datasetDir: options.datasetDir });
  const app = createViewApp({ catalog, states });
  const loopback = isLoopback(hostname);
  return new Promise((resolve, reject) => {
    try {
      const server = Deno.serve({
        port,
        hostname,
        ...(options.signal ? { signal: options.signal } : {}),
        onListen: () => {},
        onError: (error) =>
          new Response(`Cannot serve the request: ${(error as Error).message}`, { status: 500 }),
      }, (request) => {
        if (request.method !== "GET" && request.method !== "HEAD") {
          return new Response(
            "Cannot serve the request: the view is read-only (GET and HEAD only)",
            {
              status: 405,
              headers: { allow: "GET, HEAD" },
            },
          );
        }
        if (loopback && !isLoopback(hostOf(request.headers.get("host")))) {
          return new Response(
            "Cannot serve the request: the Host header does not name this machine",
            {
              status: 421,
            },
          );
        }
        return app.fetch(request);
      });
      const addr = server.addr as Deno.NetAddr;
      const shown = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
      const finished = server.finished.then(() => {
        catalog.close();
      });
      resolve({
        url: `http://${shown}:${addr.port}`,
        hostname: addr.hostname,
        port: addr.port,
        finished,
        close: async () => {
          await server.shutdown();
          await finished;
        },
      });
    } catch (error) {
      catalog.close();
      reject(error);
    }
  });
}
