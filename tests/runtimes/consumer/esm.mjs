// The default import, as a user of any runtime writes it; prints the smoke suite's answer.
import * as cc from "compaction-core";
import * as sm from "compaction-core/summarizers";
import { smoke } from "./smoke.mjs";

console.log(JSON.stringify(await smoke(cc, sm)));
