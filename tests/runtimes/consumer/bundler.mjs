// The explicit `compaction-core/bundler` entry (Bun resolves it to a build it can run).
import * as cc from "compaction-core/bundler";
import * as sm from "compaction-core/summarizers";
import { smoke } from "./smoke.mjs";

console.log(JSON.stringify(await smoke(cc, sm)));
