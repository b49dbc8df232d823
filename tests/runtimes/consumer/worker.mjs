// A Cloudflare Worker (workerd) using the default import: POST a history in
// the default (Gemini) shape as {"history": [...]}, get the smoke suite's
// answer run on it, or a 400/500 with the error.
import * as cc from "compaction-core";
import * as sm from "compaction-core/summarizers";
import { smoke } from "./smoke.mjs";

export default {
  async fetch(request) {
    if (request.method !== "POST") return new Response("POST {\"history\": [...]}", { status: 405 });
    let history;
    try {
      ({ history } = await request.json());
    } catch (e) {
      return Response.json({ error: `not JSON: ${e.message}` }, { status: 400 });
    }
    try {
      return Response.json(await smoke(cc, sm, history));
    } catch (e) {
      return Response.json({ error: `${e.name}: ${e.message}`, code: e.code ?? null }, { status: 500 });
    }
  },
};
