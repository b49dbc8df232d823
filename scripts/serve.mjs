// Serves the demonstration page on 127.0.0.1: www/ and the built package
// pkg/, side by side as in the repository, so that the page's
// `../pkg/web/compaction_core.js` resolves. Nothing else in the repository is
// served. Node's http module only.
//
//   node scripts/serve.mjs [port]      (default 8080; 0 picks a free port)
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const SERVED = ["www", "pkg"];
const TYPES = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8", ".json": "application/json; charset=utf-8", ".wasm": "application/wasm",
  ".svg": "image/svg+xml", ".md": "text/markdown; charset=utf-8", ".ts": "text/plain; charset=utf-8",
};

function send(res, status, body, type = "text/plain; charset=utf-8") {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  res.end(body);
}

async function handle(req, res, root) {
  if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "method not allowed");
  let path;
  try {
    path = decodeURIComponent(new URL(req.url, "http://127.0.0.1").pathname);
  } catch {
    return send(res, 400, "bad request");
  }
  if (path === "/" || path === "/www") {
    res.writeHead(302, { location: "/www/" });
    return res.end();
  }
  const file = resolve(root, `.${path}`);
  const top = file.slice(root.length + 1).split(sep)[0];
  if (!file.startsWith(root + sep) || !SERVED.includes(top)) return send(res, 404, "not found");
  try {
    const target = (await stat(file)).isDirectory() ? join(file, "index.html") : file;
    const body = await readFile(target);
    res.writeHead(200, { "content-type": TYPES[extname(target)] ?? "application/octet-stream", "cache-control": "no-store" });
    res.end(req.method === "HEAD" ? undefined : body);
  } catch {
    send(res, 404, path.startsWith("/pkg/") ? "not found (is the package built? run scripts/build)" : "not found");
  }
}

/** Starts the server; resolves to { url, pageUrl, close }. */
export function startServer({ port = 8080, root = ROOT } = {}) {
  const server = createServer((req, res) => { handle(req, res, root); });
  return new Promise((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const url = `http://127.0.0.1:${server.address().port}/`;
      resolvePromise({ url, pageUrl: `${url}www/`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(process.argv[2] ?? process.env.PORT ?? 8080);
  startServer({ port }).then(
    ({ pageUrl }) => console.log(`The demonstration page: ${pageUrl}  (Ctrl-C stops the server)`),
    (error) => {
      console.error(`serve: cannot listen on 127.0.0.1:${port}: ${error.message}${error.code === "EADDRINUSE" ? " (try another port: scripts/demo <port>)" : ""}`);
      process.exit(1);
    },
  );
}
