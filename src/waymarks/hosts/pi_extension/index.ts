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
 * WAYMARKS_BRIDGE_TIMEOUT_MS (default 5000; each duration at least 100 ms, else its
 * default, named to the person), WAYMARKS_BRIDGE_TIMINGS (a file to append
 * one JSON line per round trip, for measurements; one that cannot be written is said once
 * and skipped), WAYMARKS_EVOLVE_INTERVAL_MS (default
 * 15000: the pause between evolution checks; tests shorten it).
 *
 * This file holds Pi's hooks and commands; beside it (package data, each shipped and
 * loaded with it): bridge.ts (the bridge process and its protocol), payload.ts (a provider
 * payload on its way out), messages.ts (reading Pi's conversation), pi_model.ts (the
 * model call the bridge asks Pi for), tools.ts (the model's tools) and settings.ts (what
 * the environment sets).
 */
import { Bridge } from "./bridge.ts";
import { earlierUserTexts, fixedChars, lastUserText, workTurn } from "./messages.ts";
import { checkPayload, withheld } from "./payload.ts";
import { badSettings, EVOLVE_EVERY_MS, LONG_CALL_MS, type Json } from "./settings.ts";
import { registerTools } from "./tools.ts";

/** What a plan is asked for when the person's message is images without text. */
const IMAGES_ONLY = "(the person sent images without text)";

export default function waymarks(pi: any) {
	const warned = new Set<string>();
	const bridge = new Bridge(pi, warn);
	let pinsSaid: string | undefined; // the pins' fallback last said (bridge's `pinsLeftOut`)
	let learnedSaid: string | undefined; // why learned memory was left out, last said (`learnedLeftOut`)
	let staleSaid: string | undefined; // the full disk's note last said (`stale`)
	let turnEnded: Array<() => void> = [];
	let turnStarted: Array<() => void> = [];
	/** entry IDs whose turn was judged for learning capture: present at session start, or
	 * already there at an earlier agent_end (whether learning was on or off then) */
	let judged = new Set<string>();
	let evolveTimer: NodeJS.Timeout | undefined;
	let shutDown = false;
	/** session starts so far: a start's failure is said only while it is the latest */
	let starts = 0;

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

	/** The evolution timer: one `evolve` check 15 s after the previous one ended. */
	function scheduleEvolve() {
		if (shutDown || process.env.PI_SUBAGENT_AGENT_ID) return;
		clearTimeout(evolveTimer);
		evolveTimer = setTimeout(async () => {
			evolveTimer = undefined;
			const ctx = bridge.ctxNow;
			try {
				// only while Pi is idle: a consolidation call never competes with a turn
				if (bridge.child && bridge.ready && ctx?.model && ctx.isIdle?.() !== false) {
					// the model's window and output limit shape the request (EVOLUTION item 53)
					const done = await bridge.call(ctx, "evolve", { provider: ctx.model.provider, model: ctx.model.id, contextWindow: ctx.model.contextWindow, maxTokens: ctx.model.maxTokens }, LONG_CALL_MS);
					// a fallback to a backup route is news once per route pair per hour (item 66)
					const notice = (done as Json)?.notice;
					if (notice && ctx.hasUI) ctx.ui.notify(`Waymarks learning: ${notice.from} failed (${notice.reason}); used ${notice.to}`, "info");
				}
			} catch {}
			scheduleEvolve();
		}, EVOLVE_EVERY_MS);
		evolveTimer.unref?.();
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

	pi.on("session_start", async (_event: Json, ctx: any) => {
		bridge.stop();
		bridge.ctxNow = ctx;
		for (const said of badSettings) warn(ctx, said, said);
		judged = new Set(ctx.sessionManager.getEntries().map((e: Json) => e.id));
		bridge.downUntil = 0; // a new session tries at once
		const starting = bridge.start(ctx);
		const mine = ++starts;
		bridge.ready = starting;
		starting.catch((e: Error) => {
			// a start that a later one (or the session's end) replaced is nobody's failure: Pi
			// 0.73 starts a session it switches to twice, and the second stopped the first's
			// bridge ("memory is off for this session" while it was on, and said once, a
			// real failure later went unsaid)
			if (mine !== starts) return;
			if (bridge.ready === starting) bridge.down();
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
		bridge.evolving?.abort(); // the bridge records a cancelled call, not a failure
		try {
			if (bridge.child) await bridge.request("shutdown", {}, 1000);
		} catch {}
		bridge.stop();
	});

	// What a summary is made of stays in the conversation as its summary, sent with every
	// later request to whichever model comes next: the bridge renders it for that (the
	// active model and an unnamed remote one, both) before Pi's own summarizer sends it.
	// Pi's summary requests do not pass before_provider_request. Fails closed: a summary
	// whose input could not be checked is not made.
	async function forHistory(ctx: any, payload: Json): Promise<Json> {
		const checked = await bridge.call(ctx, "sanitize", { payload, provider: ctx.model?.provider, history: true });
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
			await bridge.call(ctx, "learn", { event: "session_compact" });
		} catch {}
	});

	pi.on("agent_end", async (event: Json, ctx: any) => {
		// with learning on, the person's statements of this turn become sources for later
		// consolidation, and its tool results a work source (never a model call here;
		// nothing at all when learning is off). Only this turn's user entries are named: an
		// earlier turn was judged at its own end, perhaps while learning was off. A stale
		// ctx (its session replaced) throws from getEntries: caught with the call, as in
		// every other hook, never thrown into Pi; nothing is learned from that turn.
		try {
			const users: string[] = [];
			for (const e of ctx.sessionManager.getEntries()) {
				if (judged.has(e.id)) continue;
				judged.add(e.id);
				if (e.type === "message" && e.message?.role === "user") users.push(e.id);
			}
			await bridge.call(ctx, "learn", { event: "agent_end", turn: workTurn(event?.messages), users: users.slice(-64) });
		} catch {}
	});

	pi.on("context", async (event: Json, ctx: any) => {
		const last = lastUserText(ctx, event.messages);
		// a message of images alone is a request too: the pins apply to it (before, it got none)
		const prompt = last?.text.trim() ? last.text : last?.images ? IMAGES_ONLY : "";
		if (!last || !prompt) return undefined;
		try {
			const modelLimit = Number.isInteger(ctx.model?.contextWindow) && ctx.model.contextWindow > 0 ? ctx.model.contextWindow : undefined;
			const fixed = fixedChars(pi, ctx, event.messages, last.text);
			const key = `${ctx.model?.provider}:${ctx.model?.id}:${modelLimit}:${JSON.stringify(fixed)}:${ctx.sessionManager.getLeafId()}:${last.index}:${last.text}`;
			if (bridge.cachedPlan?.key !== key) {
				const history = earlierUserTexts(ctx, event.messages, last);
				const plan = await bridge.call(ctx, "plan", { prompt, provider: ctx.model?.provider, modelLimit, fixed, history });
				bridge.cachedPlan = { key, messages: plan.fallback ? [] : plan.messages };
				// pins over their budget: nothing went, said once per distinct reason
				const left = typeof plan.pinsLeftOut === "string" ? plan.pinsLeftOut : undefined;
				if (left && left !== pinsSaid) warn(ctx, `no pins or memory were added: ${left}`);
				pinsSaid = left;
				// learned memory not ready yet (the bridge builds its ranking as it starts): said once
				const learned = typeof plan.learnedLeftOut === "string" ? plan.learnedLeftOut : undefined;
				if (learned && learned !== learnedSaid && ctx.hasUI) ctx.ui.notify(`Waymarks: ${learned}`, "info");
				learnedSaid = learned;
				// a full disk: planned from the database as it is, nothing new stored (said once)
				const stale = typeof plan.stale === "string" ? plan.stale : undefined;
				if (stale && stale !== staleSaid && ctx.hasUI) ctx.ui.notify(`Waymarks: ${stale}`, "warning");
				staleSaid = stale;
				// Pi's provider ID holds a control, bidi or zero-width character: planned as an unknown model (said once)
				const refused = typeof plan.providerRefused === "string" ? plan.providerRefused : undefined;
				if (refused) warn(ctx, refused, "provider");
			}
			if (!bridge.cachedPlan.messages.length) return undefined;
			const injected = bridge.cachedPlan.messages.map((m: Json) => ({
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
			return (await checkPayload(bridge, ctx, event.payload)) ?? withheld(event.payload);
		} catch (e) {
			// Fails closed: a payload that could not be checked (markers, credentials) is
			// withheld, never sent as Pi built it.
			warn(ctx, `requests are withheld (their content replaced): their privacy could not be checked (${e instanceof Error ? e.message : e})`, "privacy");
			return withheld(event.payload);
		}
	});

	async function command(ctx: any, text: string) {
		try {
			const r = await bridge.call(ctx, "command", { text }, LONG_CALL_MS);
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
				const r = await bridge.call(ctx, "remember", { text: args || null });
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

	registerTools(pi, bridge);
}
