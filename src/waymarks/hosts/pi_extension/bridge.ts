/**
 * The `waymarks bridge` process of a Pi session and its protocol: started (again, once
 * the one before has exited), spoken to in line-delimited JSON-RPC with a timeout per
 * request, stopped when slow or dead, and answered when it asks what only Pi can do
 * (append an entry, ask the person, call the active model: `hostRequest`).
 *
 * What must stay true: a bridge that would not start is not started again for RETRY_MS;
 * every request pending when a bridge stops is rejected at once; and what the bridge holds
 * (the session entries sent, the conversation it holds for `sanitize`, whether it takes a
 * conversation's tail, the last plan) is forgotten with every new bridge, which holds
 * nothing yet.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { appendFileSync } from "node:fs";
import { isAbsolute, resolve as resolvePath } from "node:path";
import { createInterface } from "node:readline";
import { keptOut, type Kept } from "./payload.ts";
import { completeWithPi } from "./pi_model.ts";
import { BRIDGE_TIMEOUT_MS, MAX_TIMER_MS, type Json } from "./settings.ts";

type Pending = { resolve: (v: Json) => void; reject: (e: Error) => void; timer: NodeJS.Timeout };
/** Tell the person (index.ts's `warn`): once per `kind`, or every time without one. */
export type Warn = (ctx: any, message: string, kind?: string) => void;

const RETRY_MS = 60_000; // a bridge that failed to start is tried again after this
const LAST_WORDS = 400; // how much of a bridge's standard error is kept to say why it stopped

/** ``text`` on one line, its controls and direction marks shown as escapes. */
function oneLine(text: string): string {
	return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
		(c) => (c === "\n" ? "\\n" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
}

export class Bridge {
	child: ChildProcessWithoutNullStreams | undefined;
	ready: Promise<Json> | undefined;
	/** the ctx of the latest hook: the bridge's own requests are served with it */
	ctxNow: any;
	downUntil = 0;
	cachedPlan: { key: string; messages: Json[] } | undefined;
	/** The conversation list the bridge holds (its token), the JSON text of each of its
	 * messages as sent, and the checked list it answered (given to Pi): a provider request
	 * sends only the messages after those it opens with, and its answer leaves out those it
	 * answered unchanged (hosts/pi_conversation.py). Reset with every new bridge. */
	held: { token: string; key: string; texts: string[]; out: Json[] | undefined } | undefined;
	/** whether the bridge running takes a conversation's tail (its initialize says so) */
	tails = false;
	/** the AbortSignal of the tool call in progress: a confirmation it asks for ends
	 * `cancelled` when it fires (abort before dispatch) */
	toolSignal: AbortSignal | undefined;
	/** the consolidation call in progress (`complete`): a session's end aborts it */
	evolving: AbortController | undefined;
	private readonly pi: any;
	private readonly warn: Warn;
	private nextId = 0;
	private readonly pending = new Map<number, Pending>();
	private readonly sent = new Set<string>();
	/** confirmations open: the bridge serves nothing else meanwhile, so no timer runs out */
	private confirming = 0;
	/** when the last confirmation closed (`performance.now()`): a request queued behind it
	 * is answered only after it, and is given a whole timeout from then */
	private confirmedAt = -Infinity;
	private timings = process.env.WAYMARKS_BRIDGE_TIMINGS;
	/** bridges stopped so far, and when the last one stopped has exited */
	private spawns = 0;
	private exited: Promise<void> = Promise.resolve();
	/** why the last bridge stopped (the end of its stderr, its exit status, or why it could
	 * not be started), said with every warning that memory is off or requests withheld */
	private stoppedWhy = "";

	constructor(pi: any, warn: Warn) {
		this.pi = pi;
		this.warn = warn;
	}

	/** A bridge that would not start (or answer initialize) is not started again for
	 * RETRY_MS: each hook of a turn restarted it and waited the whole initialize timeout
	 * again (a stuck one cost 40 s per model request, 105 s for one prompt). */
	down() {
		this.stop();
		this.downUntil = Date.now() + RETRY_MS;
	}

	stop(why = "") {
		for (const p of this.pending.values()) {
			clearTimeout(p.timer);
			p.reject(new Error(`the Waymarks bridge stopped${why ? `: ${why}` : ""}`));
		}
		this.pending.clear();
		const old = this.child;
		if (old && old.exitCode === null && old.signalCode === null) {
			// SIGKILL: a stopped bridge takes no SIGTERM, and while it lives it holds the
			// session's lock (the next one found it held: "another Pi process has this session")
			this.exited = new Promise((resolve) => old.once("exit", () => resolve()));
			old.kill("SIGKILL");
		}
		this.child = undefined;
		this.ready = undefined;
		this.spawns++;
	}

	/** A new bridge once the one before has exited (a bridge stuck in its disk ends late:
	 * waited for at most the time initialize is given), then `initialize`. */
	start(ctx: any): Promise<Json> {
		const mine = this.spawns;
		let timer: NodeJS.Timeout | undefined;
		const late = new Promise<void>((resolve) => void (timer = setTimeout(resolve, BRIDGE_TIMEOUT_MS * 4)));
		timer?.unref?.();
		return Promise.race([this.exited, late]).then(() => {
			clearTimeout(timer);
			if (mine !== this.spawns) throw new Error("the Waymarks bridge stopped"); // stopped meanwhile
			return this.spawnBridge(ctx);
		});
	}

	private spawnBridge(ctx: any): Promise<Json> {
		this.sent.clear();
		this.stoppedWhy = "";
		this.cachedPlan = undefined;
		this.held = undefined;
		this.tails = false;
		// a relative WAYMARKS_BIN (`.venv/bin/waymarks`) is the project's, as it was when the
		// bridge started there (spawned at `/`, it was looked for under `/`: ENOENT)
		const named = process.env.WAYMARKS_BIN || "waymarks";
		const bin = named.includes("/") && !isAbsolute(named) && typeof ctx.cwd === "string" ? resolvePath(ctx.cwd, named) : named;
		// Not in the project: an empty entry in PYTHONPATH (`PYTHONPATH=$PYTHONPATH:/x` with
		// none set before) puts the working directory on the import path, and a cloned
		// repository's `msgspec.py` ran as the bridge started. The project is `initialize`'s.
		const proc = spawn(bin, ["bridge"], { cwd: "/", stdio: ["pipe", "pipe", "pipe"], env: process.env });
		this.child = proc;
		let said = ""; // the end of its stderr (it names the cause: a home that is a file)
		const ended = (how: string) => {
			if (proc !== this.child) return;
			this.stoppedWhy = oneLine(said.trim() ? `${how}: ${said.trim()}` : how);
			this.stop(this.stoppedWhy);
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
		createInterface({ input: proc.stdout }).on("line", (line) => this.onLine(proc, line));
		const manager = ctx.sessionManager;
		const file = manager.getSessionFile?.();
		const entries = manager.getEntries();
		for (const e of entries) this.sent.add(e.id);
		let trusted: boolean | undefined;
		try {
			trusted = typeof ctx.isProjectTrusted === "function" ? Boolean(ctx.isProjectTrusted()) : undefined;
		} catch {
			trusted = undefined;
		}
		return this.request("initialize", {
			cwd: ctx.cwd,
			sessionFile: file ?? null,
			header: file ? manager.getHeader() : null,
			entries: file ? entries : [],
			leafId: manager.getLeafId(),
			hasUI: Boolean(ctx.hasUI),
			trusted,
			provider: ctx.model?.provider,
		}, BRIDGE_TIMEOUT_MS * 4).then((r: Json) => {
			if (proc === this.child) this.tails = r?.conversationTails === true; // (an older bridge: whole payloads)
			if (typeof r?.heldBack === "string") this.warn(ctx, r.heldBack, "held");
			return r;
		});
	}

	private async onLine(proc: ChildProcessWithoutNullStreams, line: string) {
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
				result = await this.hostRequest(message.method, message.params ?? {}, proc);
			} catch (e) {
				error = { code: "host_error", message: e instanceof Error ? e.message : String(e) };
			}
			this.write(proc, error ? { id: message.id, error } : { id: message.id, result });
			return;
		}
		const waiting = this.pending.get(message.id);
		if (!waiting) return;
		this.pending.delete(message.id);
		clearTimeout(waiting.timer);
		if (message.error) waiting.reject(new Error(`${message.error.code}: ${message.error.message}`));
		else waiting.resolve(message.result);
	}

	private async hostRequest(method: string, params: Json, proc: ChildProcessWithoutNullStreams): Promise<Json> {
		const ctx = this.ctxNow;
		if (method === "appendEntry") {
			this.pi.appendEntry(params.customType, params.data);
			const entries = ctx.sessionManager.getEntries();
			const entry = entries[entries.length - 1];
			if (!entry || entry.type !== "custom" || entry.customType !== params.customType) {
				throw new Error("the appended entry could not be found");
			}
			this.sent.add(entry.id);
			return entry;
		}
		if (method === "confirm") {
			if (!ctx?.hasUI) return { decision: "unavailable" };
			const signal = this.toolSignal;
			if (signal?.aborted || proc.exitCode !== null || proc.signalCode !== null) return { decision: "cancelled" };
			// the dialog closes when the call is aborted or the bridge that asked is gone: its
			// answer reaches no one then (left open, a yes confirmed nothing, and the open
			// dialog kept every later request's timer from running out)
			const closed = new AbortController();
			const close = () => closed.abort();
			signal?.addEventListener("abort", close, { once: true });
			proc.once("exit", close);
			this.confirming++;
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
				this.confirming--;
				this.confirmedAt = performance.now();
				signal?.removeEventListener("abort", close);
				proc.off("exit", close);
			}
		}
		if (method === "complete") return completeWithPi(ctx, params, this);
		throw new Error(`unknown host method ${method}`);
	}

	/** `message` as one line; `tail` (JSON texts, a `sanitize`'s messages after those the
	 * bridge holds) goes as its params' last field, written as they are. */
	private write(proc: ChildProcessWithoutNullStreams, message: Json, kept?: Kept, tail?: string[]): boolean {
		if (proc.exitCode !== null || proc.stdin.destroyed) return false;
		try {
			const line = JSON.stringify(message, kept && keptOut(kept)); // ends with the params' "}}"
			proc.stdin.write(tail ? `${line.slice(0, -2)},"tail":[${tail.join(",")}]}}\n` : `${line}\n`);
			return true;
		} catch {
			return false;
		}
	}

	request(method: string, params: Json, asked = BRIDGE_TIMEOUT_MS, kept?: Kept, tail?: string[]): Promise<Json> {
		const timeout = Math.min(asked, MAX_TIMER_MS); // (initialize's is four calls')
		const proc = this.child;
		if (!proc) return Promise.reject(new Error("the Waymarks bridge is not running"));
		const id = ++this.nextId;
		const started = performance.now();
		const pending = this.pending;
		const timings = this.timings;
		return new Promise((resolve, reject) => {
			const expire = () => {
				const waiting = pending.get(id); // queued behind the person's answer: wait on
				if (waiting && this.confirming > 0) return void (waiting.timer = setTimeout(expire, timeout));
				// and a whole timeout once it is given, from then: what was left of the last
				// one (nothing, if the answer came just before it ran out) ended the bridge
				// while it finished the confirmed write, and the person's yes was lost
				const since = performance.now() - this.confirmedAt;
				if (waiting && since < timeout) return void (waiting.timer = setTimeout(expire, timeout - since));
				pending.delete(id);
				if (proc === this.child) this.stop(); // slow or stuck: the next call starts a new bridge
				reject(new Error(`${method} took longer than ${timeout} ms`));
			};
			const timer = setTimeout(expire, timeout);
			pending.set(id, {
				resolve: (v) => {
					const ms = performance.now() - started;
					resolve(v); // first: a timing that cannot be written never holds the answer
					if (timings) this.timed(timings, method, ms);
				},
				reject,
				timer,
			});
			if (!this.write(proc, { id, method, params }, kept, tail)) {
				clearTimeout(timer);
				pending.delete(id);
				reject(new Error("the Waymarks bridge is not running"));
			}
		});
	}

	/** One round trip appended to the WAYMARKS_BRIDGE_TIMINGS file. A file that cannot be
	 * written (its folder missing, say) is said once and no timings are written: the throw
	 * left the answer it came with unsettled, and Node ended Pi on the unhandled rejection. */
	private timed(file: string, method: string, ms: number) {
		try {
			appendFileSync(file, `${JSON.stringify({ method, ms })}\n`);
		} catch (e) {
			this.timings = undefined;
			this.warn(this.ctxNow, `WAYMARKS_BRIDGE_TIMINGS=${JSON.stringify(file).slice(0, 200)} cannot be written (${e instanceof Error ? e.message : e}); no timings are written`, "timings");
		}
	}

	private syncParams(ctx: any): Json {
		const manager = ctx.sessionManager;
		const fresh = manager.getEntries().filter((e: Json) => !this.sent.has(e.id));
		for (const e of fresh) this.sent.add(e.id);
		return { entries: fresh, leafId: manager.getLeafId(), provider: ctx.model?.provider };
	}

	/** A bridge call that may restart the bridge once; waits for confirmations without a limit. */
	async call(ctx: any, method: string, params: Json = {}, timeout = BRIDGE_TIMEOUT_MS, kept?: Kept, tail?: (() => [Json, string[] | undefined])): Promise<Json> {
		this.ctxNow = ctx;
		if (!this.ready) { // (while it starts, the bridge before may still be ending: no child yet)
			if (Date.now() < this.downUntil) throw new Error(`the Waymarks bridge is down${this.stoppedWhy ? ` (${this.stoppedWhy})` : ""}; it is tried again within a minute`);
			this.ready = this.start(ctx);
		}
		try {
			await this.ready;
		} catch (e) {
			this.down(); // initialize failed or timed out: start afresh after RETRY_MS
			throw e;
		}
		// the database is waited for well within this call's timeout: a plan behind another
		// process's write fails with why, instead of the bridge being killed every request;
		// a call given minutes (a command, a confirmed write) still waits as long as before
		// (what the bridge holds is known once it runs: a new one holds nothing)
		const [more, texts] = tail ? tail() : [{}, undefined];
		return this.request(method, { ...params, ...more, sync: this.syncParams(ctx), busyTimeoutMs: Math.max(1, Math.floor(timeout / 2)) }, timeout, kept, texts);
	}
}
