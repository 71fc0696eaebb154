// Bundles src/ into dist/: one ES module and one style sheet, served by routes.py.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
await build({
  absWorkingDir: here,
  entryPoints: ["src/tabs.js", "src/tabs.css"],
  outdir: "dist",
  entryNames: "[name]",
  bundle: true,
  format: "esm",
  minify: true,
  target: ["chrome110", "firefox110", "safari16"],
  legalComments: "none",
  logLevel: "warning",
});
