// The TypeScript client (dist/, built by `npm run build`) against a live Handover server:
// HANDOVER_URL and HANDOVER_API_KEY name it (tests/clients/test_typescript.py starts it, with
// an agent `demo` of the property-advisor schema and an agent-scoped key). Faults come from a
// small proxy in between, as in the Python client's tests.
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import {
  AuthenticationError,
  ConflictError,
  Handover,
  InvalidRequestError,
  NotFoundError,
  RateLimitedError,
  TransportError,
  searchResultText,
} from "../dist/index.js";
import { memoryTools } from "../dist/ai.js";

const url = process.env.HANDOVER_URL;
const apiKey = process.env.HANDOVER_API_KEY;
const run = Math.random().toString(36).slice(2, 8); // users and sessions of this run
const fast = { backoff: 0.01, maxBackoff: 0.05 };

/** A proxy that misbehaves on cue: ["status", 429, {"Retry-After": "1"}] answers without
 * forwarding; ["lose", 502] forwards (the server does the work) and answers 502 instead. */
function faultyProxy() {
  const steps = [];
  const seen = [];
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    seen.push(`${req.method} ${req.url}`);
    const step = steps.shift() ?? ["pass"];
    if (step[0] === "status") {
      res.writeHead(step[1], { "Content-Type": "application/json", ...step[2] });
      res.end(JSON.stringify({ code: "scripted", detail: "scripted" }));
      return;
    }
    const headers = { ...req.headers };
    delete headers.host;
    delete headers["content-length"];
    const upstream = await fetch(url + req.url, {
      method: req.method, headers, body: body.length ? body : undefined,
    });
    const data = Buffer.from(await upstream.arrayBuffer());
    if (step[0] === "lose") {
      res.writeHead(step[1], { "Content-Type": "text/html" });
      res.end("<html>bad gateway</html>");
      return;
    }
    res.writeHead(upstream.status, { "Content-Type": upstream.headers.get("content-type") ?? "" });
    res.end(data);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}`, steps, seen, close: () => server.close() });
    });
  });
}

describe("the call path", () => {
  const hv = new Handover({ apiKey, baseUrl: url });

  test("opens, appends numbered turns, lists, undoes, clears, searches and packs", async () => {
    const session = await hv.openSession("demo", `priya-${run}`, { session: `call-${run}` });
    assert.equal(session.created, true);
    assert.equal(session.next_seq, 1);
    assert.equal(session.memory_tool.function.name, "search_memory");
    const sid = session.session_id;
    const first = await hv.appendTurn(sid, "user", "My budget is 80 lakhs.");
    const second = await hv.appendTurn(sid, "assistant", "Noted: 80 lakhs.");
    assert.deepEqual([first.seq, first.created, second.seq], [1, true, 2]);
    const batch = await hv.appendTurns(sid, [
      { role: "user", text: "I live in Pune." },
      { role: "assistant", text: "Pune, got it." },
    ]);
    assert.deepEqual(batch.turns.map((t) => t.seq), [3, 4]);
    assert.equal(batch.created, 2);
    // The same seq and text again: the stored turn, not a second one.
    const again = await hv.appendTurn(sid, "user", "My budget is 80 lakhs.", { seq: 1 });
    assert.deepEqual([again.seq, again.created], [1, false]);

    const page = await hv.listTurns(sid, { limit: 3 });
    assert.deepEqual(page.turns.map((t) => t.seq), [4, 3, 2]);
    assert.equal(page.next_before_seq, 2);
    assert.deepEqual((await hv.removeLastTurn(sid)).seq, 4);
    // A resumed session numbers on from the server's next_seq (the removed seq is not reused).
    const resumed = new Handover({ apiKey, baseUrl: url });
    const reopened = await resumed.openSession("demo", `priya-${run}`, { session: `call-${run}` });
    assert.equal(reopened.created, false);
    assert.equal((await resumed.appendTurn(sid, "assistant", "Pune it is.")).seq, 5);

    const fact = await hv.writeFact(`priya-${run}`, "budget", { amount: 8_000_000, currency: "INR" }, { agent: "demo" });
    assert.equal(fact.created, true);
    assert.equal(fact.value_text, "₹80 lakh");
    const same = await hv.writeFact(`priya-${run}`, "budget", { amount: 8_000_000, currency: "INR" }, { agent: "demo" });
    assert.equal(same.created, false);
    const found = await hv.search(`priya-${run}`, "what is her budget", { agent: "demo", k: 3 });
    assert.match(searchResultText(found), /₹80 lakh.*\(confidence: high\)/);
    const packed = await hv.context(sid, { budgetTokens: 400 });
    assert.match(packed.context, /₹80 lakh/);
    const entities = await hv.listEntities(`priya-${run}`, { agent: "demo", key: "budget" });
    assert.deepEqual(entities.map((e) => e.value_text), ["₹80 lakh"]);
    assert.equal((await hv.clearTurns(sid)).cleared, 4);
    assert.equal((await hv.forgetEntity(entities[0].id)).deleted_versions, 1);
  });

  test("errors carry the API's code", async () => {
    const session = await hv.openSession("demo", `ravi-${run}`);
    await hv.appendTurn(session.session_id, "user", "Hello.");
    await assert.rejects(hv.appendTurn(session.session_id, "user", "Something else.", { seq: 1 }), (error) => {
      assert.ok(error instanceof ConflictError);
      assert.equal(error.code, "turn_conflict");
      assert.equal(error.status, 409);
      return true;
    });
    await assert.rejects(hv.writeFact(`ravi-${run}`, "budget", "a lot", { agent: "demo" }), (error) => {
      assert.ok(error instanceof InvalidRequestError);
      assert.equal(error.code, "invalid");
      assert.ok(error.fields.value);
      assert.ok(error.requestId);
      return true;
    });
    await assert.rejects(hv.listTurns("00000000-0000-0000-0000-000000000000"), (error) => {
      assert.ok(error instanceof NotFoundError);
      assert.equal(error.code, "session_not_found");
      return true;
    });
    const stranger = new Handover({ apiKey: "hv_nope_nope", baseUrl: url });
    await assert.rejects(stranger.openSession("demo", "x"), (error) => {
      assert.ok(error instanceof AuthenticationError);
      assert.equal(error.code, "invalid_api_key");
      return true;
    });
  });
});

describe("retries", () => {
  let proxy;
  before(async () => {
    proxy = await faultyProxy();
  });
  after(() => proxy.close());

  test("429 and 503 are retried, after Retry-After", async () => {
    const hv = new Handover({ apiKey, baseUrl: proxy.url, retry: fast });
    proxy.steps.push(["status", 429, { "Retry-After": "1" }], ["status", 503, {}]);
    const started = Date.now();
    const session = await hv.openSession("demo", `asha-${run}`);
    assert.ok(Date.now() - started >= 1000, "waited for Retry-After");
    assert.ok(session.session_id);
    assert.equal(proxy.seen.length, 3);
  });

  test("429 after the retries is a RateLimitedError with retryAfter", async () => {
    const hv = new Handover({ apiKey, baseUrl: proxy.url, retry: { ...fast, maxRetries: 2 } });
    proxy.steps.push(...Array(3).fill(["status", 429, { "Retry-After": "0" }]));
    await assert.rejects(hv.search(`asha-${run}`, "x", { agent: "demo" }), (error) => {
      assert.ok(error instanceof RateLimitedError);
      assert.equal(error.retryAfter, 0);
      return true;
    });
  });

  test("an append whose answer was lost is sent again with its seq and stored once", async () => {
    const hv = new Handover({ apiKey, baseUrl: proxy.url, retry: fast });
    const session = await hv.openSession("demo", `meera-${run}`, { session: `lost-${run}` });
    proxy.seen.length = 0;
    proxy.steps.push(["lose", 502]);
    const turn = await hv.appendTurn(session.session_id, "user", "We have a dog.");
    assert.deepEqual([turn.seq, turn.created], [1, false]); // the retry found the stored turn
    assert.equal(proxy.seen.length, 2);
    const page = await hv.listTurns(session.session_id);
    assert.deepEqual(page.turns.map((t) => [t.seq, t.text]), [[1, "We have a dog."]]);
    // A retry of a batch with client seqs is safe too.
    proxy.steps.push(["lose", 504]);
    const batch = await hv.appendTurns(session.session_id, [{ role: "assistant", text: "A dog, noted." }]);
    assert.deepEqual([batch.created, batch.existing], [0, 1]);
    assert.equal((await hv.listTurns(session.session_id)).turns.length, 2);
  });

  test("no answer at all: a TransportError carrying the append's seq", async () => {
    const hv = new Handover({ apiKey, baseUrl: url });
    const session = await hv.openSession("demo", `omar-${run}`, { session: `gone-${run}` });
    const closed = await faultyProxy();
    closed.close();
    const unreachable = new Handover({ apiKey, baseUrl: closed.url, retry: { ...fast, maxRetries: 1 } });
    unreachable.seqs.start(session.session_id, 1);
    await assert.rejects(unreachable.appendTurn(session.session_id, "user", "Hello?"), (error) => {
      assert.ok(error instanceof TransportError);
      assert.equal(error.seq, 1);
      return true;
    });
    // Appended again with that seq: stored once.
    const turn = await hv.appendTurn(session.session_id, "user", "Hello?", { seq: 1 });
    assert.equal(turn.created, true);
  });
});

test("the AI SDK tools search and remember through Handover", async () => {
  const hv = new Handover({ apiKey, baseUrl: url });
  const user = `kiran-${run}`;
  await hv.writeFact(user, "budget", { amount: 8_000_000, currency: "INR" }, { agent: "demo" });
  const usage = {
    inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 5, text: 5, reasoning: 0 },
  };
  const call = (name, input) => ({
    content: [{ type: "tool-call", toolCallId: `c-${name}`, toolName: name, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [],
  });
  const model = new MockLanguageModelV3({
    doGenerate: [
      call("search_memory", { query: "budget", k: 3 }),
      call("remember_fact", { key: "city", value: "Pune" }),
      { content: [{ type: "text", text: "Eighty lakh, in Pune." }],
        finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] },
    ],
  });
  const result = await generateText({
    model, tools: memoryTools(hv, { agent: "demo", user }), stopWhen: stepCountIs(5),
    prompt: "What was my budget? I live in Pune.",
  });
  assert.equal(result.text, "Eighty lakh, in Pune.");
  const outputs = result.steps.flatMap((s) => s.toolResults.map((r) => r.output));
  assert.match(outputs[0], /₹80 lakh.*confidence: high/);
  assert.equal(outputs[1], "Remembered city: Pune.");
  // The tools were offered to the model with their JSON Schemas.
  const offered = model.doGenerateCalls[0].tools.map((t) => t.name);
  assert.deepEqual(offered, ["search_memory", "remember_fact"]);
  const city = await hv.listEntities(user, { agent: "demo", key: "city" });
  assert.deepEqual(city.map((e) => e.value), ["Pune"]);
});
