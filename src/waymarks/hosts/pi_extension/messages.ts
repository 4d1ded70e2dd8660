/**
 * Reading Pi's conversation for the bridge: the person's request a model call serves and
 * where its injection goes, their earlier turns (what recall follows), the size of what
 * Pi sends anyway (the planner's hard-limit check), and a run's work reduced to what a
 * work observation reads. Pure over what Pi hands the hooks: no bridge, no state.
 */
import type { Json } from "./settings.ts";

const IMAGE_TOKENS = 1200; // what Pi estimates an image costs (its compaction's estimateTokens)
/** Pi's context messages that stand for what a compaction or a branch summary replaced. */
const SUMMARIES = new Set(["compactionSummary", "branchSummary"]);

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
export function fixedChars(pi: any, ctx: any, messages: Json[], request: string): Json {
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
export function lastUserText(ctx: any, messages: Json[]): { index: number; text: string; images: boolean; message: Json } | undefined {
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
export function earlierUserTexts(ctx: any, messages: Json[], last: { index: number; text: string; message: Json }): string[] {
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

/** The run's messages from its last user message on, reduced to what a work observation
 * reads: texts, tool calls (string arguments), linked results, each string clipped to its
 * head and tail. At most 4,096: the user message (the work request, found however long
 * the turn is) and the newest 4,095 after it, with an `omitted` entry when older ones were
 * left out. The bridge applies the real bounds (issue 19). */
export function workTurn(messages: unknown): Json[] {
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
