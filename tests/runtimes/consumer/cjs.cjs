// The default require(), as a CommonJS user writes it; prints the smoke suite's answer.
const cc = require("compaction-core");
const sm = require("compaction-core/summarizers");

import("./smoke.mjs")
  .then(({ smoke }) => smoke(cc, sm))
  .then((out) => console.log(JSON.stringify(out)));
