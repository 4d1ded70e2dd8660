/**
 * The tools the model may call. Each one's work is in the bridge (`tool`): a call that
 * cannot reach it answers `unavailable`, never throws into Pi. A write is confirmed by the
 * person in the dialog the bridge asks for, which the call's AbortSignal closes.
 */
import { Type } from "typebox";
import type { Bridge } from "./bridge.ts";
import { BRIDGE_TIMEOUT_MS, LONG_CALL_MS, type Json } from "./settings.ts";

/** A tool whose work is in the bridge; `signal` is the call's AbortSignal. What it
 * answers when the bridge cannot be reached names its category under `reason` (the
 * context_persistence contract says `errorCode`, the other tools `category`). */
async function bridgeTool(bridge: Bridge, ctx: any, name: string, params: Json, signal: AbortSignal | undefined,
	timeout = BRIDGE_TIMEOUT_MS, reason = "category") {
	bridge.toolSignal = signal;
	try {
		const r = await bridge.call(ctx, "tool", { name, arguments: params }, timeout);
		return { content: [{ type: "text", text: r.text }], details: r.details };
	} catch (e) {
		const details = { outcome: "unavailable", [reason]: "runtime-unavailable" };
		return { content: [{ type: "text", text: JSON.stringify(details) }], details };
	} finally {
		if (bridge.toolSignal === signal) bridge.toolSignal = undefined;
	}
}

export function registerTools(pi: any, bridge: Bridge) {
	/** `tool` registered with the `execute` that calls it in the bridge (see bridgeTool). */
	const register = (tool: Json, timeout = BRIDGE_TIMEOUT_MS, reason = "category") => pi.registerTool({
		...tool,
		async execute(_id: string, params: Json, signal: AbortSignal | undefined, _onUpdate: Json, ctx: any) {
			return bridgeTool(bridge, ctx, tool.name, params, signal, timeout, reason);
		},
	});
	const optional = (schema: Json) => Type.Optional(schema);
	register({
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
	}, LONG_CALL_MS, "errorCode");

	register({
		name: "memory_recall",
		label: "Memory recall",
		description: "Look up durable memory claims relevant to a question (read-only; at most 3 claims).",
		parameters: Type.Object({ query: Type.String() }),
	});

	register({
		name: "remember",
		label: "Remember",
		description:
			"Save one item of the person's personal memory (a preference, lesson or reference that follows them " +
			"across projects) after they chose it in a visible curation turn (/remember). The person confirms the " +
			"save. Pass the slug of an existing entry to replace it. Only a result with outcome saved proves " +
			"persistence. Never credentials.",
		executionMode: "sequential", // its dialog holds the bridge: nothing runs beside it
		parameters: Type.Object({ text: Type.String(), slug: optional(Type.String()) }),
	}, LONG_CALL_MS);

	register({
		name: "recall_memory_entry",
		label: "Recall memory entry",
		description: "Fetch one personal memory entry in full by its name (the slug in the personal memory index; read-only).",
		parameters: Type.Object({ name: Type.String() }),
	});

	register({
		name: "capture_note",
		label: "Capture note",
		description:
			"Capture a short discussion note for this session (type: lesson by default, or requirement, decision, " +
			"constraint, action, question, preference, implementation). The person promotes lessons with /notes promote.",
		parameters: Type.Object({ text: Type.String(), type: optional(Type.String()) }),
	});

	register({
		name: "recall_memory",
		label: "Recall memory",
		description:
			"Engineering docs of this project that match a question, plus the compact index of the person's personal " +
			"memory, in one call (read-only; fetch a full entry with recall_memory_entry).",
		parameters: Type.Object({ query: Type.String() }),
	});
}
