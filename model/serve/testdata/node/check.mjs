// Run by model/serve's TestNodeSDKs: the official Node SDKs against
// headroom serve. BASE_URL is the server. Prints one JSON object with what
// was seen; exits 1 with a message on the first thing that is wrong.
import OpenAI, { RateLimitError } from "openai";
import Anthropic from "@anthropic-ai/sdk";

const base = process.env.BASE_URL;
const fail = (msg) => { console.error(msg); process.exit(1); };
const expect = (cond, msg) => { if (!cond) fail(msg); };
const out = {};

const openai = new OpenAI({ baseURL: base + "/v1", apiKey: "test" });
const anthropic = new Anthropic({ baseURL: base, apiKey: "test" });

// Chat Completions, not streamed.
const c = await openai.chat.completions.create({ model: "sonnet", max_tokens: 8, messages: [{ role: "user", content: "hello" }] });
expect(c.choices[0].finish_reason === "length" && c.usage.completion_tokens === 8, "chat: " + JSON.stringify(c));
out.chat = c.choices[0].message.content;

// Streamed, with usage.
const stream = await openai.chat.completions.create({ model: "sonnet", max_tokens: 12, stream: true,
  stream_options: { include_usage: true }, messages: [{ role: "user", content: "hello" }] });
let text = "", chunks = 0, usage = null;
for await (const ch of stream) {
  if (ch.choices.length && ch.choices[0].delta.content) { text += ch.choices[0].delta.content; chunks++; }
  if (ch.usage) usage = ch.usage;
}
expect(chunks === 12 && usage && usage.completion_tokens === 12, `chat stream: ${chunks} chunks, usage ${JSON.stringify(usage)}`);
out.chatStream = text;

// Responses, streamed.
const rs = await openai.responses.create({ model: "sonnet", input: "hello", max_output_tokens: 6, stream: true });
let rtext = "", final = null;
for await (const ev of rs) {
  if (ev.type === "response.output_text.delta") rtext += ev.delta;
  if (ev.type === "response.completed" || ev.type === "response.incomplete") final = ev.response;
}
expect(final && final.usage.output_tokens === 6 && rtext.length > 0, "responses stream: " + JSON.stringify(final));
out.responses = rtext;

// Messages, streamed through the SDK's helper.
const ms = anthropic.messages.stream({ model: "sonnet", max_tokens: 10, messages: [{ role: "user", content: "hello" }] });
const msg = await ms.finalMessage();
expect(msg.stop_reason === "max_tokens" && msg.usage.output_tokens === 10, "messages: " + JSON.stringify(msg));
out.messages = msg.content[0].text;

// The limit. empty() sends requests without retries until one is refused
// (the bucket holds two) and returns the RateLimitError.
const empty = async () => {
  for (let i = 0; i < 6; i++) {
    try {
      await openai.chat.completions.create({ model: "tight", max_tokens: 2, messages: [{ role: "user", content: "x" }] }, { maxRetries: 0 });
    } catch (e) {
      expect(e instanceof RateLimitError && e.status === 429, "not a RateLimitError: " + e);
      return e;
    }
  }
  fail("six requests in a row got through a bucket of two");
};
const e = await empty();
out.retryAfter = e.headers.get("retry-after");
out.remaining = e.headers.get("x-ratelimit-remaining-requests");
expect(out.retryAfter && out.remaining === "0", "429 headers: " + JSON.stringify(out));

// With their default retries, each SDK called on an emptied bucket is
// refused, waits the Retry-After and gets through. Every HTTP attempt is
// seen through the fetch the SDK is given.
const sent = [];
const recording = async (url, init) => {
  const at = Date.now();
  const res = await fetch(url, init);
  sent.push({ out: at, back: Date.now(), status: res.status, retryAfterMs: Number(res.headers.get("retry-after-ms") ?? NaN),
    retryCount: new Headers(init?.headers).get("x-stainless-retry-count") });
  return res;
};
const openaiSeen = new OpenAI({ baseURL: base + "/v1", apiKey: "test", fetch: recording });
const anthropicSeen = new Anthropic({ baseURL: base, apiKey: "test", fetch: recording });
out.notes = [];
out.retried = {};
const retried = async (name, call) => {
  for (let tries = 1; ; tries++) {
    await empty();
    const emptied = Date.now();
    const from = sent.length;
    await call();
    const a = sent.slice(from);
    if (a[0].status !== 429) {
      // The bucket refilled between emptying it and the call: the machine
      // stalled for half a second.
      const note = `${name}: the emptied bucket refilled before the call reached it (sent ${a[0].out - emptied} ms after the refusal)`;
      if (tries === 3) fail(note + ", three times");
      out.notes.push(note + "; again");
      continue;
    }
    const last = a[a.length - 1];
    expect(a.length >= 2 && last.status === 200 && last.retryCount === String(a.length - 1),
      `${name}: attempts ${JSON.stringify(a)}: want 429s, then a 200 marked as a retry`);
    for (let i = 0; i + 1 < a.length; i++) {
      const r = a[i];
      expect(r.status === 429 && r.retryAfterMs > 0 && r.retryAfterMs <= 501,
        `${name}: attempt ${i + 1}: ${JSON.stringify(r)}: want a 429 with at most the 0.5 s a refill takes`);
      // (Node timers may fire up to a millisecond early.)
      expect(a[i + 1].out - r.back >= Math.floor(r.retryAfterMs) - 1,
        `${name}: retried ${a[i + 1].out - r.back} ms after a 429 whose retry-after-ms was ${r.retryAfterMs}`);
    }
    out.retried[name] = { attempts: a.length, waitedMs: a[1].out - a[0].back, retryAfterMs: a[0].retryAfterMs };
    return;
  }
};
await retried("openai", () => openaiSeen.chat.completions.create({ model: "tight", max_tokens: 2, messages: [{ role: "user", content: "x" }] }));
await retried("anthropic", () => anthropicSeen.messages.create({ model: "tight", max_tokens: 2, messages: [{ role: "user", content: "x" }] }));

// Batches on the batch lane: OpenAI's Batch API and Anthropic's Message
// Batches, polled until they end (a 2 s turnaround, 0.5 s at 4x).
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const until = async (get, done, what) => {
  for (let i = 0; i < 100; i++) {
    const b = await get();
    if (done(b)) return b;
    await sleep(100);
  }
  fail(what + " did not end");
};
const lines = [0, 1].map((i) => JSON.stringify({ custom_id: "q" + i, method: "POST", url: "/v1/chat/completions",
  body: { model: "sonnet", max_tokens: 4, messages: [{ role: "user", content: "question " + i }] } })).join("\n") + "\n";
const file = await openai.files.create({ file: new File([lines], "in.jsonl", { type: "application/jsonl" }), purpose: "batch" });
let batch = await openai.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
batch = await until(() => openai.batches.retrieve(batch.id), (b) => b.status === "completed", "the OpenAI batch");
expect(batch.request_counts.completed === 2 && batch.output_file_id, "OpenAI batch: " + JSON.stringify(batch));
const outLines = (await (await openai.files.content(batch.output_file_id)).text()).trim().split("\n").map((l) => JSON.parse(l));
expect(outLines.length === 2 && outLines.every((l) => l.response.status_code === 200 && l.response.body.usage.completion_tokens === 4),
  "OpenAI batch output: " + JSON.stringify(outLines));
let mb = await anthropic.messages.batches.create({ requests: [{ custom_id: "a", params: { model: "sonnet", max_tokens: 3,
  messages: [{ role: "user", content: "hello" }] } }] });
mb = await until(() => anthropic.messages.batches.retrieve(mb.id), (b) => b.processing_status === "ended", "the Anthropic batch");
let results = 0;
for await (const r of await anthropic.messages.batches.results(mb.id)) {
  expect(r.result.type === "succeeded" && r.result.message.usage.output_tokens === 3, "Anthropic batch result: " + JSON.stringify(r));
  results++;
}
out.batches = outLines.length + results;
console.log(JSON.stringify(out));
