/**
 * A provider payload on its way out: the values JSON cannot carry kept here while the
 * payload crosses the bridge (`Kept`), the conversation sent as the messages after those
 * the bridge holds unchanged (`checkPayload`), and a payload whose privacy could not be
 * checked made content-free (`withheld`).
 *
 * What must stay true: nothing leaves unchecked. A kept value is one that holds no text a
 * model reads; what the bridge answered is what goes to Pi (the messages it left out are
 * those it checked last time, put back from here), and a list given to Pi is frozen, so
 * an extension loaded after this one cannot change a message that is sent again later.
 */
import { createHash } from "node:crypto";
import type { Bridge } from "./bridge.ts";
import { BRIDGE_TIMEOUT_MS, type Json } from "./settings.ts";

const WITHHELD = "[withheld by Waymarks: privacy could not be checked]";
/** Keys whose string values are protocol, not content: kept when a payload is withheld. */
const STRUCTURAL = new Set(["model", "modelId", "role", "type", "stream", "tool_choice", "id", "tool_call_id", "name"]);

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
export type Kept = Map<number, unknown>;
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
export function keptOut(values: Kept) {
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

/** The part of text a media part (an image, a document, audio) becomes in a withheld
 * payload, in its own dialect (undefined: `value` is none). Scrubbed in place, its media
 * type and data became the withheld text (Gemini's `inlineData`, Anthropic's `image`
 * source, an `image_url`, Bedrock's `format`): no media type a provider knows, no base64,
 * no URL, so the provider refused the request (400) where it would have answered its
 * withheld text. */
function mediaAsText(value: Json): Json | undefined {
	if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
	if (typeof value.type === "string") {
		if (TYPED_MEDIA.has(value.type)) return { type: "text", text: WITHHELD };
		if (RESPONSES_MEDIA.has(value.type)) return { type: "input_text", text: WITHHELD };
		return undefined;
	}
	const keys = Object.keys(value);
	return keys.some((k) => UNTYPED_MEDIA.has(k) && value[k] && typeof value[k] === "object")
		? { text: WITHHELD } // Gemini's part, Bedrock Converse's block: text is one key
		: undefined;
}
/** Media parts by their type (Anthropic, Chat Completions; Responses' input), and by their
 * key where parts have no type (Gemini, the REST API's spelling too; Bedrock Converse). */
const TYPED_MEDIA = new Set(["image", "document", "image_url", "input_audio", "file"]);
const RESPONSES_MEDIA = new Set(["input_image", "input_file"]);
const UNTYPED_MEDIA = new Set(["inlineData", "inline_data", "fileData", "file_data", "image", "document", "video"]);

/** The payload with every piece of text replaced, whatever its shape (OpenAI, Anthropic,
 * Google …): only protocol fields (model, role, type …) keep their values, and a media
 * part is a part of text (`mediaAsText`). */
export function withheld(payload: Json): Json {
	const scrub = (value: Json, key?: string): Json => {
		if (typeof value === "string") return key !== undefined && STRUCTURAL.has(key) ? value : WITHHELD;
		if (ArrayBuffer.isView(value)) return new Uint8Array(0); // an image's bytes are content
		if (kept(value)) return value; // an AbortSignal, a function: what the request needs, not content
		if (Array.isArray(value)) return value.map((v) => mediaAsText(v) ?? scrub(v));
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

/** The provider payload as it may leave (`sanitize`), or undefined when its content is
 * to be withheld (an answer without a payload is no check either: undefined from the
 * hook sent Pi's own payload unchecked). Its conversation's messages go to the bridge
 * after those it holds unchanged (compared as the JSON texts sent: a long session's
 * request sent it all again, tens of megabytes it decoded each time), the whole list
 * when it holds none of it (`resync`: it started again, say); the answer leaves out the
 * checked messages it answered last time unchanged (`same`), which are put back here. */
export async function checkPayload(bridge: Bridge, ctx: any, payload: Json): Promise<Json | undefined> {
	const timeoutMs = BRIDGE_TIMEOUT_MS;
	const provider = ctx.model?.provider;
	const values: Kept = new Map();
	const key = CONVERSATION_KEYS.find((k) => Array.isArray(payload?.[k]));
	if (key === undefined || !bridge.tails) {
		const checked = await bridge.call(ctx, "sanitize", { payload, provider }, timeoutMs, values);
		return checked?.withheld || !checked?.payload ? undefined : keptBack(checked.payload, values);
	}
	const out = keptOut(values);
	const texts: string[] = payload[key].map((m: Json) => JSON.stringify(m, out) ?? "null");
	let named: typeof bridge.held; // what the bridge was told it holds
	const send = (whole: boolean) => (): [Json, string[] | undefined] => {
		// (decided by the bridge the request goes to: one started for this call may be
		// an older release, and was sent the payload with its conversation emptied)
		if (!bridge.tails) return [{ payload }, undefined];
		let base = 0;
		const held = bridge.held;
		const was = whole || held?.key !== key ? undefined : held;
		while (was && base < was.texts.length && base < texts.length && was.texts[base] === texts[base]) base++;
		named = base ? was : undefined;
		return [{ conversation: { key, base, held: base ? was?.token : null } }, texts.slice(base)];
	};
	const body = { payload: { ...payload, [key]: [] }, provider };
	let checked = await bridge.call(ctx, "sanitize", body, timeoutMs, values, send(false));
	if (checked?.resync) checked = await bridge.call(ctx, "sanitize", body, timeoutMs, values, send(true));
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
	if (typeof checked?.held === "string") bridge.held = { token: checked.held, key, texts, out: list?.slice() };
	return safe;
}
