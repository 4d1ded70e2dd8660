/**
 * Waymarks for Pi: pins, durable memory and personal memory in front of every request.
 *
 * All logic is in Python (`waymarks bridge`, one long-lived process per Pi session, spoken
 * to in line-delimited JSON-RPC). This extension only forwards, and does what only Pi can
 * do on Python's behalf: append canonical entries (pi.appendEntry), ask the person
 * (ctx.ui.confirm), report project trust and the active branch.
 *
 * Pi's active model decides: every request tells the bridge the active provider (what it
 * may see) and plans get the model's context window and the size of what Pi sends anyway
 * (system prompt, tools, messages), so the planner's hard-limit check runs here too.
 *
 * A command that starts a visible turn (/remember, /notes promote) sends it as the
 * person's message; without a UI (print and JSON modes) it waits for that turn to end,
 * so `pi -p "/remember …"` runs the turn before Pi exits.
 *
 * Memory evolution (learning on for the home): 15 s after the previous check ended, a timer
 * (unreferenced, so it never keeps Pi alive; stopped on session_shutdown; never in a
 * subagent; skipped while a turn runs) sends `evolve` with the active model; the bridge
 * runs one queue attempt and asks back `complete`, which Pi performs with ctx.modelRegistry.complete and the active model
 * (Pi resolves the credentials; none reach Waymarks). A Pi without that API answers
 * `unavailable`. Only an error code ever crosses back, never a provider's error text.
 *
 * Failure policy: if the bridge is down or slow, Pi keeps working without injected context
 * and the person sees one warning for that. Privacy is the exception: a provider payload
 * that cannot be checked is withheld (its content replaced) rather than sent unchecked,
 * and the person is told that too, once. A bridge that failed to start is started again
 * after a minute, not by every hook.
 *
 * Configuration (environment): WAYMARKS_BIN (default "waymarks"), WAYMARKS_HOME,
 * WAYMARKS_BRIDGE_TIMEOUT_MS (default 5000), WAYMARKS_BRIDGE_TIMINGS (a file to append
 * one JSON line per round trip, for measurements), WAYMARKS_EVOLVE_INTERVAL_MS (default
 * 15000: the pause between evolution checks; tests shorten it).
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync } from "node:fs";
import { isAbsolute, resolve as resolvePath } from "node:path";
import { createInterface } from "node:readline";
import { Type } from "typebox";

type Json = any;
type Pending = { resolve: (v: Json) => void; reject: (e: Error) => void; timer: NodeJS.Timeout };

const WITHHELD = "[withheld by Waymarks: privacy could not be checked]";
const LONG_CALL_MS = 10 * 60 * 1000; // a confirmation waits for the person, not for a timer
/** What the environment set wrong, said to the person once a session starts. */
const badSettings: string[] = [];

/** The longest timer Node runs as asked: a longer one runs after 1 ms (a timeout of ten
 * billion, meant as "never", timed every call out at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A duration from the environment: a positive number of milliseconds, else `fallback`,
 * and the person is told (`WAYMARKS_BRIDGE_TIMEOUT_MS=10s` was NaN: every request timed
 * out at once, memory was off and every request's content withheld, "took longer than
 * NaN ms"; a NaN interval ran the evolution check without a pause). */
function envMs(name: string, fallback: number): number {
	const raw = process.env[name];
	if (raw === undefined || raw === "") return fallback;
	const value = Number(raw);
	if (Number.isFinite(value) && value > 0) return Math.min(value, MAX_TIMER_MS);
	badSettings.push(`${name}=${JSON.stringify(raw).slice(0, 80)} is not a number of milliseconds; ${fallback} is used`);
	return fallback;
}

const EVOLVE_EVERY_MS = envMs("WAYMARKS_EVOLVE_INTERVAL_MS", 15_000);
const BRIDGE_TIMEOUT_MS = envMs("WAYMARKS_BRIDGE_TIMEOUT_MS", 5000);
const DEFAULT_CALL_MS = 120_000;
const RETRY_MS = 60_000; // a bridge that failed to start is tried again after this
const IMAGE_TOKENS = 1200; // what Pi estimates an image costs (its compaction's estimateTokens)
const LAST_WORDS = 400; // how much of a bridge's standard error is kept to say why it stopped
/** Keys whose string values are protocol, not content: kept when a payload is withheld. */
/** What a plan is asked for when the person's message is images without text. */
const IMAGES_ONLY = "(the person sent images without text)";
/** Pi's context messages that stand for what a compaction or a branch summary replaced. */
const SUMMARIES = new Set(["compactionSummary", "branchSummary"]);
const STRUCTURAL = new Set(["model", "role", "type", "stream", "tool_choice", "id", "tool_call_id", "name"]);

/** Values of a payload JSON cannot carry, by the placeholder they cross the bridge as.
 * Bedrock Converse's image bytes and redacted reasoning are Uint8Array: JSON has no bytes,
 * written as they were they became an object of numbered keys, which the bridge sent back
 * and the AWS SDK encoded as no image at all. Google's payload holds the request's
 * AbortSignal (config.abortSignal): it became {}, and the SDK failed before sending
 * anything ("callerSignal.addEventListener is not a function"). Such values (bytes, a
 * function, an AbortSignal: none holds text a model reads) stay here;
 * `{"waymarksKept": N}` goes in their place (N from a digest of the bytes, so the same
 * bytes read the same in every request; a negative number the extension gives the same
 * object each time otherwise), is kept as it is by the sanitizer (a number under a key),
 * and is put back on the way out, the value itself never taken from the bridge. Images
 * and encrypted blobs are not text the sanitizer reads, as base64 media is not. */
type Kept = Map<number, unknown>;
/** The payload keys of a conversation list (Chat Completions, Anthropic and Bedrock; Responses; Gemini). */
const CONVERSATION_KEYS = ["messages", "input", "contents"];
const KEPT_KEY = "waymarksKept";
const keptNumbers = new WeakMap<object, number>();
let keptCount = 0;

/** Whether `value` is one JSON cannot carry as it is (see Kept) and that holds no text a
 * model reads: bytes, a function, an AbortSignal. Any other object (a Date, a Map, another
 * class's instance) goes through JSON to the sanitizer as before: kept here, text inside
 * one would reach the provider unchecked. */
function kept(value: unknown): value is object {
	if (typeof value === "function") return true;
	if (!value || typeof value !== "object") return false;
	return ArrayBuffer.isView(value) || (typeof AbortSignal !== "undefined" && value instanceof AbortSignal);
}

/** A JSON.stringify replacer putting each kept value's placeholder in its place. */
function keptOut(values: Kept) {
	return function (this: Json, key: string, value: Json): Json {
		const raw = this[key]; // (a Buffer's or a Date's toJSON has run: `value` is not it any more)
		if (!kept(raw)) return value;
		let n = keptNumbers.get(raw);
		if (ArrayBuffer.isView(raw)) {
			n = createHash("sha256").update(new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength)).digest().readUIntBE(0, 6);
		} else if (n === undefined) {
			keptNumbers.set(raw, (n = -++keptCount));
		}
		values.set(n, raw);
		return { [KEPT_KEY]: n };
	};
}

/** `value` (a checked payload) with each placeholder of `values` back as the value it stood for. */
function keptBack(value: Json, values: Kept): Json {
	if (!values.size || !value || typeof value !== "object") return value;
	if (Array.isArray(value)) {
		for (let i = 0; i < value.length; i++) value[i] = keptBack(value[i], values);
		return value;
	}
	const keys = Object.keys(value);
	if (keys.length === 1 && keys[0] === KEPT_KEY && values.has(value[KEPT_KEY])) return values.get(value[KEPT_KEY]);
	for (const k of keys) value[k] = keptBack(value[k], values);
	return value;
}

/** `value` and everything in it made read-only (not a kept value: a view with elements
 * cannot be, and an AbortSignal or another class's instance is not Waymarks' to change). */
function frozen(value: Json): Json {
	if (!value || typeof value !== "object" || Object.isFrozen(value) || kept(value)) return value;
	Object.freeze(value);
	for (const k of Object.keys(value)) frozen(value[k]);
	return value;
}

export default function waymarks(pi: any) {
	let child: ChildProcessWithoutNullStreams | undefined;
	let ready: Promise<Json> | undefined;
	let nextId = 0;
	const pending = new Map<number, Pending>();
	const sent = new Set<string>();
	let ctxNow: any;
	const warned = new Set<string>();
	let downUntil = 0;
	let cachedPlan: { key: string; messages: Json[] } | undefined;
	/** The conversation list the bridge holds (its token), the JSON text of each of its
	 * messages as sent, and the checked list it answered (given to Pi): a provider request
	 * sends only the messages after those it opens with, and its answer leaves out those it
	 * answered unchanged (hosts/pi_conversation.py). Reset with every new bridge. */
	let held: { token: string; key: string; texts: string[]; out: Json[] | undefined } | undefined;
	/** whether the bridge running takes a conversation's tail (its initialize says so) */
	let tails = false;
	let pinsSaid: string | undefined; // the pins' fallback last said (bridge's `pinsLeftOut`)
	let learnedSaid: string | undefined; // why learned memory was left out, last said (`learnedLeftOut`)
	/** the AbortSignal of the tool call in progress: a confirmation it asks for ends
	 * `cancelled` when it fires (abort before dispatch) */
	let toolSignal: AbortSignal | undefined;
	/** confirmations open: the bridge serves nothing else meanwhile, so no timer runs out */
	let confirming = 0;
	let turnEnded: Array<() => void> = [];
	let turnStarted: Array<() => void> = [];
	const timeoutMs = BRIDGE_TIMEOUT_MS;
	const timings = process.env.WAYMARKS_BRIDGE_TIMINGS;
	/** entry IDs whose turn was judged for learning capture: present at session start, or
	 * already there at an earlier agent_end (whether learning was on or off then) */
	let judged = new Set<string>();
	let evolveTimer: NodeJS.Timeout | undefined;
	let evolving: AbortController | undefined;
	let shutDown = false;
	/** session starts so far: a start's failure is said only while it is the latest */
	let starts = 0;
	/** bridges stopped so far, and when the last one stopped has exited */
	let spawns = 0;
	let exited: Promise<void> = Promise.resolve();
	/** why the last bridge stopped (the end of its stderr, its exit status, or why it could
	 * not be started), said with every warning that memory is off or requests withheld */
	let stoppedWhy = "";

	/** Tell the person once per `kind` ("memory": no context injected, "privacy":
	 * requests withheld; each is said once, not the first of them only, which hid why
	 * answers made no sense), or every time without one (a command they typed failed).
	 * Never throws: a hook that fails closed warns before it withholds or cancels, and a
	 * warning that threw (Pi's ctx throws from every getter once its session is replaced)
	 * made the hook throw, so Pi sent its own payload and made the summary unchecked. */
	function warn(ctx: any, message: string, kind?: string) {
		if (kind !== undefined) {
			if (warned.has(kind)) return;
			warned.add(kind);
		}
		try {
			if (ctx?.hasUI) return void ctx.ui.notify(`Waymarks: ${message}`, "warning");
		} catch {} // (said on standard error instead)
		process.stderr.write(`Waymarks: ${message}\n`);
	}

	/** A bridge that would not start (or answer initialize) is not started again for
	 * RETRY_MS: each hook of a turn restarted it and waited the whole initialize timeout
	 * again (a stuck one cost 40 s per model request, 105 s for one prompt). */
	function down() {
		stop();
		downUntil = Date.now() + RETRY_MS;
	}

	function stop(why = "") {
		for (const p of pending.values()) {
			clearTimeout(p.timer);
			p.reject(new Error(`the Waymarks bridge stopped${why ? `: ${why}` : ""}`));
		}
		pending.clear();
		const old = child;
		if (old && old.exitCode === null && old.signalCode === null) {
			// SIGKILL: a stopped bridge takes no SIGTERM, and while it lives it holds the
			// session's lock (the next one found it held: "another Pi process has this session")
			exited = new Promise((resolve) => old.once("exit", () => resolve()));
			old.kill("SIGKILL");
		}
		child = undefined;
		ready = undefined;
		spawns++;
	}

	/** A new bridge once the one before has exited (a bridge stuck in its disk ends late:
	 * waited for at most the time initialize is given), then `initialize`. */
	function start(ctx: any): Promise<Json> {
		const mine = spawns;
		let timer: NodeJS.Timeout | undefined;
		const late = new Promise<void>((resolve) => void (timer = setTimeout(resolve, timeoutMs * 4)));
		timer?.unref?.();
		return Promise.race([exited, late]).then(() => {
			clearTimeout(timer);
			if (mine !== spawns) throw new Error("the Waymarks bridge stopped"); // stopped meanwhile
			return spawnBridge(ctx);
		});
	}

	function spawnBridge(ctx: any): Promise<Json> {
		sent.clear();
		stoppedWhy = "";
		cachedPlan = undefined;
		held = undefined;
		tails = false;
		// a relative WAYMARKS_BIN (`.venv/bin/waymarks`) is the project's, as it was when the
		// bridge started there (spawned at `/`, it was looked for under `/`: ENOENT)
		const named = process.env.WAYMARKS_BIN || "waymarks";
		const bin = named.includes("/") && !isAbsolute(named) && typeof ctx.cwd === "string" ? resolvePath(ctx.cwd, named) : named;
		// Not in the project: an empty entry in PYTHONPATH (`PYTHONPATH=$PYTHONPATH:/x` with
		// none set before) puts the working directory on the import path, and a cloned
		// repository's `msgspec.py` ran as the bridge started. The project is `initialize`'s.
		child = spawn(bin, ["bridge"], { cwd: "/", stdio: ["pipe", "pipe", "pipe"], env: process.env });
		const proc = child;
		let said = ""; // the end of its stderr (it names the cause: a home that is a file)
		const ended = (how: string) => {
			if (proc !== child) return;
			stoppedWhy = oneLine(said.trim() ? `${how}: ${said.trim()}` : how);
			stop(stoppedWhy);
		};
		proc.on("error", (e) => ended(`it could not be started (${e.message})`));
		proc.on("exit", (code, signal) => { // its last words may still be in the pipe
			const how = signal ? `it was ended by ${signal}` : `it exited with status ${code}`;
			if (proc.stderr.readableEnded) return ended(how);
			proc.stderr.once("end", () => ended(how));
			setTimeout(() => ended(how), 500).unref?.();
		});
		proc.stdin.on("error", () => {}); // the bridge died (EPIPE): its exit says why
		proc.stderr.setEncoding("utf8");
		proc.stderr.on("data", (d: string) => void (said = (said + d).slice(-LAST_WORDS)));
		createInterface({ input: proc.stdout }).on("line", (line) => onLine(proc, line));
		const manager = ctx.sessionManager;
		const file = manager.getSessionFile?.();
		const entries = manager.getEntries();
		for (const e of entries) sent.add(e.id);
		let trusted: boolean | undefined;
		try {
			trusted = typeof ctx.isProjectTrusted === "function" ? Boolean(ctx.isProjectTrusted()) : undefined;
		} catch {
			trusted = undefined;
		}
		return request("initialize", {
			cwd: ctx.cwd,
			sessionFile: file ?? null,
			header: file ? manager.getHeader() : null,
			entries: file ? entries : [],
			leafId: manager.getLeafId(),
			hasUI: Boolean(ctx.hasUI),
			trusted,
			provider: ctx.model?.provider,
		}, timeoutMs * 4).then((r: Json) => {
			if (proc === child) tails = r?.conversationTails === true; // (an older bridge: whole payloads)
			if (typeof r?.heldBack === "string") warn(ctx, r.heldBack, "held");
			return r;
		});
	}

	async function onLine(proc: ChildProcessWithoutNullStreams, line: string) {
		let message: Json;
		try {
			message = JSON.parse(line);
		} catch {
			return;
		}
		if (typeof message.method === "string") {
			// the bridge asks for something only Pi can do
			let result: Json = null;
			let error: Json = null;
			try {
				result = await hostRequest(message.method, message.params ?? {}, proc);
			} catch (e) {
				error = { code: "host_error", message: e instanceof Error ? e.message : String(e) };
			}
			write(proc, error ? { id: message.id, error } : { id: message.id, result });
			return;
		}
		const waiting = pending.get(message.id);
		if (!waiting) return;
		pending.delete(message.id);
		clearTimeout(waiting.timer);
		if (message.error) waiting.reject(new Error(`${message.error.code}: ${message.error.message}`));
		else waiting.resolve(message.result);
	}

	async function hostRequest(method: string, params: Json, proc: ChildProcessWithoutNullStreams): Promise<Json> {
		const ctx = ctxNow;
		if (method === "appendEntry") {
			pi.appendEntry(params.customType, params.data);
			const entries = ctx.sessionManager.getEntries();
			const entry = entries[entries.length - 1];
			if (!entry || entry.type !== "custom" || entry.customType !== params.customType) {
				throw new Error("the appended entry could not be found");
			}
			sent.add(entry.id);
			return entry;
		}
		if (method === "confirm") {
			if (!ctx?.hasUI) return { decision: "unavailable" };
			const signal = toolSignal;
			if (signal?.aborted || proc.exitCode !== null || proc.signalCode !== null) return { decision: "cancelled" };
			// the dialog closes when the call is aborted or the bridge that asked is gone: its
			// answer reaches no one then (left open, a yes confirmed nothing, and the open
			// dialog kept every later request's timer from running out)
			const closed = new AbortController();
			const close = () => closed.abort();
			signal?.addEventListener("abort", close, { once: true });
			proc.once("exit", close);
			confirming++;
			const aborted = new Promise<boolean>((resolve) => {
				closed.signal.addEventListener("abort", () => resolve(false), { once: true });
			});
			try {
				const ok = await Promise.race([ctx.ui.confirm(params.title, params.message, { signal: closed.signal }), aborted]);
				// an abort while the dialog was open wins over whatever the dialog says
				if (closed.signal.aborted) return { decision: "cancelled" };
				return { decision: ok ? "accepted" : "declined" };
			} catch {
				return { decision: "cancelled" };
			} finally {
				confirming--;
				signal?.removeEventListener("abort", close);
				proc.off("exit", close);
			}
		}
		if (method === "complete") return completeWithPi(ctx, params);
		throw new Error(`unknown host method ${method}`);
	}

	/** One consolidation call with Pi's active model. The identity is captured before
	 * awaiting; a model other than the one the bridge checked is `unavailable`. Only a
	 * ModelError code is answered on failure, never Pi's or the provider's text. */
	async function completeWithPi(ctx: any, params: Json): Promise<Json> {
		const registry = ctx?.modelRegistry;
		const model = ctx?.model;
		if (!model || typeof registry?.complete !== "function") return { error: "unavailable" };
		const provider = model.provider;
		const id = model.id;
		if (provider !== params.provider || id !== params.model) return { error: "unavailable" };
		const controller = new AbortController();
		evolving = controller;
		let timedOut = false;
		const limit = Number(params.timeoutMs) > 0 ? Math.min(Number(params.timeoutMs), MAX_TIMER_MS) : DEFAULT_CALL_MS;
		const timer = setTimeout(() => {
			timedOut = true;
			controller.abort();
		}, limit);
		timer.unref?.();
		try {
			const message = await registry.complete(model, {
				systemPrompt: String(params.system ?? ""),
				messages: [{ role: "user", content: String(params.prompt ?? ""), timestamp: Date.now() }],
			}, {
				maxTokens: Number(params.maxTokens) > 0 ? Number(params.maxTokens) : undefined,
				signal: controller.signal,
				// item 53: a one-off call, never cached and never tied to the conversation's session
				cacheRetention: "none",
				sessionId: `waymarks-evolve-${globalThis.crypto?.randomUUID?.() ?? Date.now().toString(36)}`,
			});
			if (timedOut) return { error: "timeout" };
			if (controller.signal.aborted || message?.stopReason === "aborted") return { error: "cancelled" };
			if (message?.stopReason === "error") return failure(message.errorMessage);
			// seed 004: only a normal stop is a reply; a truncated one ("length") or a tool
			// call is not (its claims were written: the HTTP routes refused it already)
			if (message?.stopReason !== "stop") return { error: "invalid_output" };
			const text = (message?.content ?? []).filter((p: Json) => p?.type === "text").map((p: Json) => String(p.text ?? "")).join("");
			const usage = message?.usage ?? {};
			// Pi's own cost figure (usage.cost.total, from its model prices), reported beside Waymarks' estimate (item 66)
			const cost = Number(usage.cost?.total);
			return { text, provider, model: id, stopReason: message.stopReason, inputTokens: Number(usage.input) || 0, outputTokens: Number(usage.output) || 0, ...(Number.isFinite(cost) && cost >= 0 ? { costUsd: cost } : {}) };
		} catch (e) {
			if (timedOut) return { error: "timeout" };
			if (controller.signal.aborted) return { error: "cancelled" };
			return failure(e instanceof Error ? e.message : String(e));
		} finally {
			clearTimeout(timer);
			if (evolving === controller) evolving = undefined;
		}
	}

	/** A provider failure as the bridge takes it: its ModelError code and, when the provider
	 * answered with an error status (the SDKs' messages begin with it: "500 {...}"; an error
	 * in mid-stream has none), that status: such a call served, and billed, nothing. */
	function failure(text: unknown): Json {
		const status = /^\s*([45]\d\d)\b/.exec(String(text ?? ""));
		return { error: errorCode(text), ...(status ? { status: Number(status[1]) } : {}) };
	}

	/** A provider failure reduced to a ModelError code (the text itself never leaves here). */
	function errorCode(text: unknown): string {
		const t = String(text ?? "");
		if (/\b402\b|quota|billing|insufficient.?credit/i.test(t)) return "quota";
		if (/\b429\b|rate.?limit|too many requests/i.test(t)) return "rate_limited";
		if (/\b(401|403)\b|unauthori[sz]ed|forbidden|api key|credential|authenticat/i.test(t)) return "auth";
		if (/\b(5\d\d|529)\b|overloaded|unavailable/i.test(t)) return "overloaded";
		if (/\b(400|404|422)\b|bad request|not found|invalid/i.test(t)) return "bad_request";
		if (/ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|fetch failed|network|socket/i.test(t)) return "network";
		if (/timed? ?out|timeout/i.test(t)) return "timeout";
		return "unknown";
	}

	/** The evolution timer: one `evolve` check 15 s after the previous one ended. */
	function scheduleEvolve() {
		if (shutDown || process.env.PI_SUBAGENT_AGENT_ID) return;
		clearTimeout(evolveTimer);
		evolveTimer = setTimeout(async () => {
			evolveTimer = undefined;
			const ctx = ctxNow;
			try {
				// only while Pi is idle: a consolidation call never competes with a turn
				if (child && ready && ctx?.model && ctx.isIdle?.() !== false) {
					// the model's window and output limit shape the request (EVOLUTION item 53)
					const done = await call(ctx, "evolve", { provider: ctx.model.provider, model: ctx.model.id, contextWindow: ctx.model.contextWindow, maxTokens: ctx.model.maxTokens }, LONG_CALL_MS);
					// a fallback to a backup route is news once per route pair per hour (item 66)
					const notice = (done as Json)?.notice;
					if (notice && ctx.hasUI) ctx.ui.notify(`Waymarks learning: ${notice.from} failed (${notice.reason}); used ${notice.to}`, "info");
				}
			} catch {}
			scheduleEvolve();
		}, EVOLVE_EVERY_MS);
		evolveTimer.unref?.();
	}

	/** `message` as one line; `tail` (JSON texts, a `sanitize`'s messages after those the
	 * bridge holds) goes as its params' last field, written as they are. */
	function write(proc: ChildProcessWithoutNullStreams, message: Json, kept?: Kept, tail?: string[]): boolean {
		if (proc.exitCode !== null || proc.stdin.destroyed) return false;
		try {
			const line = JSON.stringify(message, kept && keptOut(kept)); // ends with the params' "}}"
			proc.stdin.write(tail ? `${line.slice(0, -2)},"tail":[${tail.join(",")}]}}\n` : `${line}\n`);
			return true;
		} catch {
			return false;
		}
	}

	function request(method: string, params: Json, asked = timeoutMs, kept?: Kept, tail?: string[]): Promise<Json> {
		const timeout = Math.min(asked, MAX_TIMER_MS); // (initialize's is four calls')
		const proc = child;
		if (!proc) return Promise.reject(new Error("the Waymarks bridge is not running"));
		const id = ++nextId;
		const started = performance.now();
		return new Promise((resolve, reject) => {
			const timer = setTimeout(function expire() {
				const waiting = pending.get(id); // queued behind the person's answer: wait on
				if (waiting && confirming > 0) return void (waiting.timer = setTimeout(expire, timeout));
				pending.delete(id);
				if (proc === child) stop(); // slow or stuck: the next call starts a new bridge
				reject(new Error(`${method} took longer than ${timeout} ms`));
			}, timeout);
			pending.set(id, {
				resolve: (v) => {
					if (timings) appendFileSync(timings, `${JSON.stringify({ method, ms: performance.now() - started })}\n`);
					resolve(v);
				},
				reject,
				timer,
			});
			if (!write(proc, { id, method, params }, kept, tail)) {
				clearTimeout(timer);
				pending.delete(id);
				reject(new Error("the Waymarks bridge is not running"));
			}
		});
	}

	function syncParams(ctx: any): Json {
		const manager = ctx.sessionManager;
		const fresh = manager.getEntries().filter((e: Json) => !sent.has(e.id));
		for (const e of fresh) sent.add(e.id);
		return { entries: fresh, leafId: manager.getLeafId(), provider: ctx.model?.provider };
	}

	/** The planner's token estimate (waymarks/core/tokens.py): a quarter of a token per
	 * ASCII character, one per other character, two per one outside the BMP. Counted
	 * here, since characters alone (a quarter each) let a CJK or emoji conversation pass
	 * the model's limit at a fraction of its size. The UTF-16 units past ASCII are those
	 * counts already (one outside the BMP is two units, a lone surrogate one), so the ASCII
	 * runs are cut out by a regular expression: visited a character at a time, the
	 * conversation of a long session cost 0.6 s at 28 MB before every model call. */
	function tokensOf(text: string): number {
		const other = text.replace(/[\x00-\x7f]+/g, "").length;
		return other + Math.ceil((text.length - other) / 4);
	}

	/** The conversation as its text reaches the model: an image counts as Pi counts one
	 * (IMAGE_TOKENS), never as the characters of its base64 data, and a tool result's
	 * `details` (Pi's own, never sent) not at all. Counted as JSON, one screenshot of a
	 * megabyte took a 200k window whole, and the person's pins were left out of every
	 * later request without a word. */
	function conversationText(messages: Json[]): { text: string; images: number } {
		let images = 0;
		const sent = function (this: Json, key: string, value: Json): Json {
			if (key === "details" && this?.role === "toolResult") return undefined;
			if (value?.type === "image" && typeof value.data === "string") {
				images++;
				return { type: "image" };
			}
			return value;
		};
		try {
			return { text: JSON.stringify(messages ?? "", sent) ?? "", images };
		} catch {
			return { text: "", images: 0 };
		}
	}

	/** What Pi sends with every request anyway: characters, and tokens by the planner's
	 * estimate (a bridge that predates the tokens reads the characters). */
	function fixedChars(ctx: any, messages: Json[], request: string): Json {
		const text = (value: Json) => {
			try {
				return JSON.stringify(value ?? "") ?? "";
			} catch {
				return "";
			}
		};
		let system = "";
		let tools = "";
		try {
			system = String(ctx.getSystemPrompt?.() ?? "");
		} catch {}
		try {
			const active = new Set(pi.getActiveTools?.() ?? []);
			const all = (pi.getAllTools?.() ?? []).filter((t: Json) => active.has(t.name));
			tools = text(all.map((t: Json) => ({ name: t.name, description: t.description, parameters: t.parameters })));
		} catch {}
		const conversation = conversationText(messages);
		return {
			systemChars: system.length,
			toolsChars: tools.length,
			messagesChars: Math.max(0, conversation.text.length + conversation.images * IMAGE_TOKENS * 4 - request.length),
			systemTokens: tokensOf(system),
			toolsTokens: tokensOf(tools),
			messagesTokens: Math.max(0, tokensOf(conversation.text) + conversation.images * IMAGE_TOKENS - tokensOf(request)),
		};
	}

	/** Start a visible turn with `text` as the person's message; without a UI (print and
	 * JSON modes) wait until it has ended, so Pi does not exit before it ran. */
	async function startTurn(ctx: any, text: string) {
		if (ctx.hasUI) {
			pi.sendUserMessage(text, ctx.isIdle?.() === false ? { deliverAs: "followUp" } : undefined);
			return;
		}
		let started = false;
		const ended = new Promise<void>((resolve) => turnEnded.push(resolve));
		turnStarted.push(() => {
			started = true;
		});
		pi.sendUserMessage(text);
		// a turn that never starts (Pi refused the message) must not hold Pi open forever
		const notStarted = new Promise<void>((resolve) => {
			let waited = 0;
			const timer = setInterval(() => {
				if (started) clearInterval(timer);
				else if ((waited += 250) >= 30_000) {
					clearInterval(timer);
					resolve();
				}
			}, 250);
		});
		await Promise.race([ended, notStarted]);
	}

	pi.on("agent_start", async () => {
		const waiting = turnStarted;
		turnStarted = [];
		for (const resolve of waiting) resolve();
	});

	pi.on("agent_end", async () => {
		const waiting = turnEnded;
		turnEnded = [];
		for (const resolve of waiting) resolve();
	});

	/** A bridge call that may restart the bridge once; waits for confirmations without a limit. */
	async function call(ctx: any, method: string, params: Json = {}, timeout = timeoutMs, kept?: Kept, tail?: (() => [Json, string[] | undefined])): Promise<Json> {
		ctxNow = ctx;
		if (!ready) { // (while it starts, the bridge before may still be ending: no child yet)
			if (Date.now() < downUntil) throw new Error(`the Waymarks bridge is down${stoppedWhy ? ` (${stoppedWhy})` : ""}; it is tried again within a minute`);
			ready = start(ctx);
		}
		try {
			await ready;
		} catch (e) {
			down(); // initialize failed or timed out: start afresh after RETRY_MS
			throw e;
		}
		// the database is waited for well within this call's timeout: a plan behind another
		// process's write fails with why, instead of the bridge being killed every request;
		// a call given minutes (a command, a confirmed write) still waits as long as before
		// (what the bridge holds is known once it runs: a new one holds nothing)
		const [more, texts] = tail ? tail() : [{}, undefined];
		return request(method, { ...params, ...more, sync: syncParams(ctx), busyTimeoutMs: Math.max(1, Math.floor(timeout / 2)) }, timeout, kept, texts);
	}

	/** ``text`` on one line, its controls and direction marks shown as escapes. */
	function oneLine(text: string): string {
		return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
			(c) => (c === "\n" ? "\\n" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
	}

	/** The text of a user message (its text parts, joined). */
	function userText(m: Json): string {
		return typeof m?.content === "string"
			? m.content
			: (Array.isArray(m?.content) ? m.content : []).filter((p: Json) => p?.type === "text").map((p: Json) => p.text).join("\n");
	}

	/** The person's request this model call serves, and where its injection goes: just
	 * before the last user message. A compaction in the middle of a long turn (Pi's split
	 * turn) summarizes that message away, and the context holds no user message at all:
	 * then it is the turn's user message on the active branch, and the injection goes
	 * after the summaries, before what the turn kept (before, nothing was planned, and the
	 * pins were left out of the rest of the turn without a word). */
	function lastUserText(ctx: any, messages: Json[]): { index: number; text: string; images: boolean; message: Json } | undefined {
		const found = (index: number, m: Json) => ({ index, text: userText(m), message: m,
			images: Array.isArray(m?.content) && m.content.some((p: Json) => p?.type === "image") });
		for (let i = messages.length - 1; i >= 0; i--) {
			if (messages[i]?.role === "user") return found(i, messages[i]);
		}
		let branch: Json[] = [];
		try {
			branch = ctx.sessionManager.getBranch?.() ?? [];
		} catch {}
		for (let i = branch.length - 1; i >= 0; i--) {
			const e = branch[i];
			if (e?.type !== "message" || e.message?.role !== "user") continue;
			let index = 0;
			while (index < messages.length && SUMMARIES.has(messages[index]?.role)) index++;
			return found(index, e.message);
		}
		return undefined;
	}

	/** The person's turns before the request ``last`` on the active branch (Pi's session
	 * tree, so a compaction's summary does not hide them: with the turns read from Pi's context
	 * messages, "and the port?" after a compaction lost the subject "SQLite" of the turn it
	 * summarized, and the PostgreSQL claim went in too; Claude Code's hook reads its ledger),
	 * oldest first: at most 24 texts from the last 4,096 entries (without the branch, Pi's
	 * context messages); assistant, tool and custom messages and text Waymarks injected are
	 * left out. A turn that starts with "/" stays: Pi runs an extension's command without a
	 * message and expands a template or skill before it is one, so a user message that starts
	 * so is the person's words ("/etc/hosts is wrong"), which were left out. Recall follows
	 * the conversation with them (EVOLUTION.md item 15). */
	function earlierUserTexts(ctx: any, messages: Json[], last: { index: number; text: string; message: Json }): string[] {
		let said: Json[] = messages.slice(Math.max(0, last.index - 4096), last.index);
		try {
			const branch = ctx.sessionManager.getBranch?.();
			if (Array.isArray(branch)) {
				const users = branch.slice(-4096).filter((e: Json) => e?.type === "message" && e.message?.role === "user").map((e: Json) => e.message);
				// the request's own entry: Pi 1.x saves it before the request, Pi 0.73 after
				let at = users.length - 1;
				while (at >= 0 && !(users[at] === last.message || (users[at]?.timestamp === last.message?.timestamp && userText(users[at]) === last.text))) at--;
				said = at >= 0 ? users.slice(0, at) : users;
			}
		} catch {}
		const texts: string[] = [];
		for (let i = said.length - 1; i >= 0 && texts.length < 24; i--) {
			const m = said[i];
			if (m?.role !== "user") continue;
			const text = userText(m);
			if (!text.trim() || text.startsWith("[WAYMARKS")) continue;
			texts.push(text.length > 2048 ? text.slice(0, 2048) : text);
		}
		return texts.reverse();
	}

	/** The payload with every piece of text replaced, whatever its shape (OpenAI, Anthropic,
	 * Google …): only protocol fields (model, role, type …) keep their values. */
	function withheld(payload: Json): Json {
		const scrub = (value: Json, key?: string): Json => {
			if (typeof value === "string") return key !== undefined && STRUCTURAL.has(key) ? value : WITHHELD;
			if (ArrayBuffer.isView(value)) return new Uint8Array(0); // an image's bytes are content
			if (kept(value)) return value; // an AbortSignal, a function: what the request needs, not content
			if (Array.isArray(value)) return value.map((v) => scrub(v));
			if (value && typeof value === "object") {
				const out: Json = {};
				for (const [k, v] of Object.entries(value)) {
					if (k === "tools" || k === "functionDeclarations") continue;
					out[k] = scrub(v, k);
				}
				return out;
			}
			return value;
		};
		return scrub(payload ?? {});
	}

	pi.on("session_start", async (_event: Json, ctx: any) => {
		stop();
		ctxNow = ctx;
		for (const said of badSettings) warn(ctx, said, said);
		judged = new Set(ctx.sessionManager.getEntries().map((e: Json) => e.id));
		downUntil = 0; // a new session tries at once
		const starting = start(ctx);
		const mine = ++starts;
		ready = starting;
		starting.catch((e: Error) => {
			// a start that a later one (or the session's end) replaced is nobody's failure: Pi
			// 0.73 starts a session it switches to twice, and the second stopped the first's
			// bridge ("memory is off for this session" while it was on, and said once, a
			// real failure later went unsaid)
			if (mine !== starts) return;
			if (ready === starting) down();
			warn(ctx, `memory is off for this session (${e.message})`, "memory");
		});
		shutDown = false;
		scheduleEvolve();
	});

	pi.on("session_shutdown", async (_event: Json, ctx: any) => {
		shutDown = true;
		starts++;
		clearTimeout(evolveTimer);
		evolveTimer = undefined;
		evolving?.abort(); // the bridge records a cancelled call, not a failure
		try {
			if (child) await request("shutdown", {}, 1000);
		} catch {}
		stop();
	});

	// What a summary is made of stays in the conversation as its summary, sent with every
	// later request to whichever model comes next: the bridge renders it for that (the
	// active model and an unnamed remote one, both) before Pi's own summarizer sends it.
	// Pi's summary requests do not pass before_provider_request. Fails closed: a summary
	// whose input could not be checked is not made.
	async function forHistory(ctx: any, payload: Json): Promise<Json> {
		const checked = await call(ctx, "sanitize", { payload, provider: ctx.model?.provider, history: true });
		if (checked.withheld || !checked.payload) throw new Error(checked.reason ?? "withheld");
		return checked.payload;
	}

	function replaceAll(list: Json[], safe: Json): void {
		if (!Array.isArray(safe) || safe.length !== list.length) throw new Error("the checked list differs");
		list.splice(0, list.length, ...safe); // Pi summarizes this very array
	}

	/** One text as the summary's input may hold it (checked as a user message). */
	async function historyText(ctx: any, text: string): Promise<string> {
		const [m] = (await forHistory(ctx, { messages: [{ role: "user", content: text }] })).messages;
		return typeof m?.content === "string" ? m.content : "";
	}

	pi.on("session_before_compact", async (event: Json, ctx: any) => {
		const p = event?.preparation;
		try {
			// the person's /compact instructions go to the summarizer too, and Pi takes no
			// changed copy of them: any the check would change cancel the compaction
			const asked = event?.customInstructions;
			if (typeof asked === "string" && asked && (await historyText(ctx, asked)) !== asked) {
				warn(ctx, "compaction was cancelled: its instructions hold what a model may not be sent as it is (a credential, a local-only part); give them again without it");
				return { cancel: true };
			}
			for (const name of ["messagesToSummarize", "turnPrefixMessages"]) {
				if (Array.isArray(p?.[name]) && p[name].length) replaceAll(p[name], (await forHistory(ctx, { messages: p[name] })).messages);
			}
			if (typeof p?.previousSummary === "string" && p.previousSummary) p.previousSummary = await historyText(ctx, p.previousSummary);
			return undefined;
		} catch (e) {
			warn(ctx, `compaction was cancelled: the privacy of what it summarizes could not be checked (${e instanceof Error ? e.message : e})`);
			return { cancel: true };
		}
	});

	pi.on("session_before_tree", async (event: Json, ctx: any) => {
		const p = event?.preparation;
		if (!p?.userWantsSummary || !Array.isArray(p.entriesToSummarize) || !p.entriesToSummarize.length) return undefined;
		try {
			replaceAll(p.entriesToSummarize, (await forHistory(ctx, { messages: [], entries: p.entriesToSummarize })).entries);
			// its instructions are Pi's local copy: the checked ones are returned (Pi takes them)
			const asked = p.customInstructions;
			return typeof asked === "string" && asked ? { customInstructions: await historyText(ctx, asked) } : undefined;
		} catch (e) {
			warn(ctx, `the branch summary was cancelled: the privacy of what it summarizes could not be checked (${e instanceof Error ? e.message : e})`);
			return { cancel: true };
		}
	});

	pi.on("session_compact", async (_event: Json, ctx: any) => {
		// syncs the compaction entry; with learning on, captures its summary (no model call)
		try {
			await call(ctx, "learn", { event: "session_compact" });
		} catch {}
	});

	pi.on("agent_end", async (event: Json, ctx: any) => {
		// with learning on, the person's statements of this turn become sources for later
		// consolidation, and its tool results a work source (never a model call here;
		// nothing at all when learning is off). Only this turn's user entries are named: an
		// earlier turn was judged at its own end, perhaps while learning was off.
		const users: string[] = [];
		for (const e of ctx.sessionManager.getEntries()) {
			if (judged.has(e.id)) continue;
			judged.add(e.id);
			if (e.type === "message" && e.message?.role === "user") users.push(e.id);
		}
		try {
			await call(ctx, "learn", { event: "agent_end", turn: workTurn(event?.messages), users: users.slice(-64) });
		} catch {}
	});

	/** The run's messages from its last user message on, reduced to what a work observation
	 * reads: texts, tool calls (string arguments), linked results, each string clipped to its
	 * head and tail. At most 4,096: the user message (the work request, found however long
	 * the turn is) and the newest 4,095 after it, with an `omitted` entry when older ones were
	 * left out. The bridge applies the real bounds (issue 19). */
	function workTurn(messages: unknown): Json[] {
		if (!Array.isArray(messages)) return [];
		const clip = (v: unknown, max = 24576): string => {
			const t = typeof v === "string" ? v : "";
			return t.length <= max ? t : `${t.slice(0, max / 3)}\n${t.slice(t.length - (2 * max) / 3)}`;
		};
		const text = (c: unknown): string =>
			typeof c === "string" ? c : Array.isArray(c)
				? c.filter((p: Json) => p?.type === "text").map((p: Json) => String(p.text ?? "")).join("\n") : "";
		let start = -1;
		for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === "user") { start = i; break; }
		const after = messages.slice(start + 1);
		const kept = after.length > 4095 ? after.slice(-4095) : after;
		const omitted = after.length - kept.length;
		const reduce = (m: Json): Json => {
			if (m?.role === "toolResult")
				return { role: "toolResult", id: String(m.toolCallId ?? ""), text: clip(text(m.content)), isError: !!m.isError };
			if (m?.role !== "assistant") return { role: String(m?.role ?? ""), text: clip(text(m?.content)) };
			const calls = (Array.isArray(m.content) ? m.content : []).filter((p: Json) => p?.type === "toolCall")
				.slice(0, 64).map((p: Json) => ({ id: String(p.id ?? ""), name: String(p.name ?? ""),
					args: Object.fromEntries(Object.entries(p.arguments ?? {}).slice(0, 16)
						.filter(([, v]) => typeof v === "string").map(([k, v]) => [k, clip(v, 8192)])) }));
			return { role: "assistant", text: clip(text(m.content)), stop: String(m.stopReason ?? ""), calls };
		};
		return [...(start >= 0 ? [reduce(messages[start])] : []),
			...(omitted > 0 ? [{ role: "omitted", count: omitted }] : []), ...kept.map(reduce)];
	}

	pi.on("context", async (event: Json, ctx: any) => {
		const last = lastUserText(ctx, event.messages);
		// a message of images alone is a request too: the pins apply to it (before, it got none)
		const prompt = last?.text.trim() ? last.text : last?.images ? IMAGES_ONLY : "";
		if (!last || !prompt) return undefined;
		try {
			const modelLimit = Number.isInteger(ctx.model?.contextWindow) && ctx.model.contextWindow > 0 ? ctx.model.contextWindow : undefined;
			const fixed = fixedChars(ctx, event.messages, last.text);
			const key = `${ctx.model?.provider}:${ctx.model?.id}:${modelLimit}:${JSON.stringify(fixed)}:${ctx.sessionManager.getLeafId()}:${last.index}:${last.text}`;
			if (cachedPlan?.key !== key) {
				const history = earlierUserTexts(ctx, event.messages, last);
				const plan = await call(ctx, "plan", { prompt, provider: ctx.model?.provider, modelLimit, fixed, history });
				cachedPlan = { key, messages: plan.fallback ? [] : plan.messages };
				// pins over their budget: nothing went, said once per distinct reason
				const left = typeof plan.pinsLeftOut === "string" ? plan.pinsLeftOut : undefined;
				if (left && left !== pinsSaid) warn(ctx, `no pins or memory were added: ${left}`);
				pinsSaid = left;
				// learned memory not ready yet (the bridge builds its ranking as it starts): said once
				const learned = typeof plan.learnedLeftOut === "string" ? plan.learnedLeftOut : undefined;
				if (learned && learned !== learnedSaid && ctx.hasUI) ctx.ui.notify(`Waymarks: ${learned}`, "info");
				learnedSaid = learned;
			}
			if (!cachedPlan.messages.length) return undefined;
			const injected = cachedPlan.messages.map((m: Json) => ({
				role: "user",
				content: [{ type: "text", text: m.content }],
				timestamp: Date.now(),
			}));
			const messages = [...event.messages];
			messages.splice(last.index, 0, ...injected);
			return { messages };
		} catch (e) {
			warn(ctx, `no pins or memory for this request (${e instanceof Error ? e.message : e})`, "memory");
			return undefined;
		}
	});

	pi.on("before_provider_request", async (event: Json, ctx: any) => {
		try {
			return (await checkPayload(ctx, event.payload)) ?? withheld(event.payload);
		} catch (e) {
			// Fails closed: a payload that could not be checked (markers, credentials) is
			// withheld, never sent as Pi built it.
			warn(ctx, `requests are withheld (their content replaced): their privacy could not be checked (${e instanceof Error ? e.message : e})`, "privacy");
			return withheld(event.payload);
		}
	});

	/** The provider payload as it may leave (`sanitize`), or undefined when its content is
	 * to be withheld (an answer without a payload is no check either: undefined from the
	 * hook sent Pi's own payload unchecked). Its conversation's messages go to the bridge
	 * after those it holds unchanged (compared as the JSON texts sent: a long session's
	 * request sent it all again, tens of megabytes it decoded each time), the whole list
	 * when it holds none of it (`resync`: it started again, say); the answer leaves out the
	 * checked messages it answered last time unchanged (`same`), which are put back here. */
	async function checkPayload(ctx: any, payload: Json): Promise<Json | undefined> {
		const provider = ctx.model?.provider;
		const values: Kept = new Map();
		const key = CONVERSATION_KEYS.find((k) => Array.isArray(payload?.[k]));
		if (key === undefined || !tails) {
			const checked = await call(ctx, "sanitize", { payload, provider }, timeoutMs, values);
			return checked?.withheld || !checked?.payload ? undefined : keptBack(checked.payload, values);
		}
		const out = keptOut(values);
		const texts: string[] = payload[key].map((m: Json) => JSON.stringify(m, out) ?? "null");
		let named: typeof held; // what the bridge was told it holds
		const send = (whole: boolean) => (): [Json, string[] | undefined] => {
			// (decided by the bridge the request goes to: one started for this call may be
			// an older release, and was sent the payload with its conversation emptied)
			if (!tails) return [{ payload }, undefined];
			let base = 0;
			const was = whole || held?.key !== key ? undefined : held;
			while (was && base < was.texts.length && base < texts.length && was.texts[base] === texts[base]) base++;
			named = base ? was : undefined;
			return [{ conversation: { key, base, held: base ? was?.token : null } }, texts.slice(base)];
		};
		const body = { payload: { ...payload, [key]: [] }, provider };
		let checked = await call(ctx, "sanitize", body, timeoutMs, values, send(false));
		if (checked?.resync) checked = await call(ctx, "sanitize", body, timeoutMs, values, send(true));
		const safe = checked?.withheld || !Array.isArray(checked?.payload?.[key]) ? undefined : keptBack(checked.payload, values);
		const same = checked?.same ?? 0;
		if (safe && same) {
			const before = named?.out;
			if (!Number.isInteger(same) || same < 0 || !before || before.length < same) throw new Error("the bridge left out messages it was not answered");
			safe[key] = [...before.slice(0, same), ...safe[key]];
		}
		// what is kept for the put-back is what the bridge checked: Pi hands the payload to
		// the hooks of extensions loaded after this one, and a message one of them changed
		// in place went out again with every later request, never checked. So its list is
		// kept apart, and the messages new in it are frozen (those put back are already).
		const list: Json[] | undefined = safe?.[key];
		for (let i = same; list && i < list.length; i++) frozen(list[i]);
		if (typeof checked?.held === "string") held = { token: checked.held, key, texts, out: list?.slice() };
		return safe;
	}

	async function command(ctx: any, text: string) {
		try {
			const r = await call(ctx, "command", { text }, LONG_CALL_MS);
			if (r.prompt) return await startTurn(ctx, r.prompt); // notes promote: a visible turn
			if (ctx.hasUI) ctx.ui.notify(r.text ?? r.message, r.exitCode || !r.text ? "warning" : "info");
			else {
				process.stdout.write(`${r.text ?? r.message}\n`);
				if (r.exitCode) process.exitCode = r.exitCode; // `pi -p`: a refusal exits 2, as the CLI does
			}
		} catch (e) {
			warn(ctx, `the command failed (${e instanceof Error ? e.message : e})`);
			if (!ctx.hasUI) process.exitCode = 1;
		}
	}

	pi.registerCommand("context", {
		description: "Waymarks pins and memory: /context pins | pin … | memory … | status | health",
		handler: async (args: string, ctx: any) => command(ctx, args || "status"),
	});

	pi.registerCommand("remember", {
		description: "Curate personal memory in this conversation (saves nothing by itself)",
		handler: async (args: string, ctx: any) => {
			try {
				const r = await call(ctx, "remember", { text: args || null });
				if (!ctx.hasUI && r.exitCode) process.exitCode = r.exitCode; // `pi -p`: as /context
				if (!r.prompt) return say(ctx, r.message, r.exitCode === 0 ? "info" : "warning"); // help: info
				await startTurn(ctx, r.prompt);
			} catch (e) {
				warn(ctx, `remember failed (${e instanceof Error ? e.message : e})`);
				if (!ctx.hasUI) process.exitCode = 1;
			}
		},
	});

	pi.registerCommand("notes", {
		description: "Discussion notes: /notes add -- TEXT | list | clear | promote (a visible turn proposing doc changes)",
		handler: async (args: string, ctx: any) => command(ctx, `notes ${args || "list"}`),
	});

	function say(ctx: any, text: string, level: "info" | "warning") {
		if (ctx.hasUI) ctx.ui.notify(text, level);
		else process.stdout.write(`${text}\n`);
	}

	/** A tool whose work is in the bridge; `signal` is the call's AbortSignal. */
	async function bridgeTool(ctx: any, name: string, params: Json, signal: AbortSignal | undefined, timeout = timeoutMs) {
		toolSignal = signal;
		try {
			const r = await call(ctx, "tool", { name, arguments: params }, timeout);
			return { content: [{ type: "text", text: r.text }], details: r.details };
		} catch (e) {
			const details = { outcome: "unavailable", category: "runtime-unavailable" };
			return { content: [{ type: "text", text: JSON.stringify(details) }], details };
		} finally {
			if (toolSignal === signal) toolSignal = undefined;
		}
	}

	const optional = (schema: Json) => Type.Optional(schema);
	pi.registerTool({
		name: "context_persistence",
		label: "Context persistence",
		description:
			"Inspect and propose changes to pins and memory. Reads: pins_list, pins_find, memory_list, memory_find, " +
			"memory_sources. Writes (each confirmed by the person): pin_add, pin_supersede, pin_unpin, memory_add, " +
			"memory_supersede, memory_invalidate, memory_expire, memory_source_exclude, memory_source_include. A " +
			"targeted write needs the exact id and targetRevision from a recent list or find.",
		executionMode: "sequential",
		parameters: Type.Object({
			action: Type.String(),
			content: optional(Type.String()),
			scope: optional(Type.String()),
			key: optional(Type.String()),
			classification: optional(Type.String()),
			id: optional(Type.String()),
			targetRevision: optional(Type.String()),
			reason: optional(Type.String()),
			query: optional(Type.String()),
			activeOnly: optional(Type.Boolean()),
			maxResults: optional(Type.Integer()),
		}),
		async execute(_id: string, params: Json, signal: AbortSignal | undefined, _onUpdate: Json, ctx: any) {
			toolSignal = signal;
			try {
				const r = await call(ctx, "tool", { name: "context_persistence", arguments: params }, LONG_CALL_MS);
				return { content: [{ type: "text", text: r.text }], details: r.details };
			} catch (e) {
				const details = { outcome: "unavailable", errorCode: "runtime-unavailable" };
				return { content: [{ type: "text", text: JSON.stringify(details) }], details };
			} finally {
				if (toolSignal === signal) toolSignal = undefined;
			}
		},
	});

	pi.registerTool({
		name: "memory_recall",
		label: "Memory recall",
		description: "Look up durable memory claims relevant to a question (read-only; at most 3 claims).",
		parameters: Type.Object({ query: Type.String() }),
		async execute(_id: string, params: Json, signal: AbortSignal | undefined, _onUpdate: Json, ctx: any) {
			return bridgeTool(ctx, "memory_recall", params, signal);
		},
	});

	pi.registerTool({
		name: "remember",
		label: "Remember",
		description:
			"Save one item of the person's personal memory (a preference, lesson or reference that follows them " +
			"across projects) after they chose it in a visible curation turn (/remember). The person confirms the " +
			"save. Pass the slug of an existing entry to replace it. Only a result with outcome saved proves " +
			"persistence. Never credentials.",
		executionMode: "sequential", // its dialog holds the bridge: nothing runs beside it
		parameters: Type.Object({ text: Type.String(), slug: optional(Type.String()) }),
		async execute(_id: string, params: Json, signal: AbortSignal | undefined, _onUpdate: Json, ctx: any) {
			return bridgeTool(ctx, "remember", params, signal, LONG_CALL_MS);
		},
	});

	pi.registerTool({
		name: "recall_memory_entry",
		label: "Recall memory entry",
		description: "Fetch one personal memory entry in full by its name (the slug in the personal memory index; read-only).",
		parameters: Type.Object({ name: Type.String() }),
		async execute(_id: string, params: Json, signal: AbortSignal | undefined, _onUpdate: Json, ctx: any) {
			return bridgeTool(ctx, "recall_memory_entry", params, signal);
		},
	});

	pi.registerTool({
		name: "capture_note",
		label: "Capture note",
		description:
			"Capture a short discussion note for this session (type: lesson by default, or requirement, decision, " +
			"constraint, action, question, preference, implementation). The person promotes lessons with /notes promote.",
		parameters: Type.Object({ text: Type.String(), type: optional(Type.String()) }),
		async execute(_id: string, params: Json, signal: AbortSignal | undefined, _onUpdate: Json, ctx: any) {
			return bridgeTool(ctx, "capture_note", params, signal);
		},
	});

	pi.registerTool({
		name: "recall_memory",
		label: "Recall memory",
		description:
			"Engineering docs of this project that match a question, plus the compact index of the person's personal " +
			"memory, in one call (read-only; fetch a full entry with recall_memory_entry).",
		parameters: Type.Object({ query: Type.String() }),
		async execute(_id: string, params: Json, signal: AbortSignal | undefined, _onUpdate: Json, ctx: any) {
			return bridgeTool(ctx, "recall_memory", params, signal);
		},
	});
}
