/**
 * The bridge's `complete` request (memory evolution's consolidation call), performed with
 * Pi's active model through ctx.modelRegistry.complete: Pi resolves the credentials, none
 * reach Waymarks. Only a ModelError code ever crosses back on failure, never Pi's or the
 * provider's text.
 */
import { MAX_TIMER_MS, type Json } from "./settings.ts";

const DEFAULT_CALL_MS = 120_000;

/** One consolidation call with Pi's active model. The identity is captured before
 * awaiting; a model other than the one the bridge checked is `unavailable`. Only a
 * ModelError code is answered on failure, never Pi's or the provider's text. `running`
 * holds the call's controller while it runs (a session's end aborts it). */
export async function completeWithPi(ctx: any, params: Json, running: { evolving: AbortController | undefined }): Promise<Json> {
	const registry = ctx?.modelRegistry;
	const model = ctx?.model;
	if (!model || typeof registry?.complete !== "function") return { error: "unavailable" };
	const provider = model.provider;
	const id = model.id;
	if (provider !== params.provider || id !== params.model) return { error: "unavailable" };
	const controller = new AbortController();
	running.evolving = controller;
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
		if (running.evolving === controller) running.evolving = undefined;
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
