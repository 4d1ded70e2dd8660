/**
 * What the extension reads from the environment once, as Pi loads it, and the limits its
 * other modules share. A value the environment sets wrong is replaced by its default and
 * kept in `badSettings`, which index.ts says to the person as each session starts.
 */

export type Json = any;

/** What the environment set wrong, said to the person once a session starts. */
export const badSettings: string[] = [];

/** The longest timer Node runs as asked: a longer one runs after 1 ms (a timeout of ten
 * billion, meant as "never", timed every call out at once). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The shortest duration taken from the environment: no bridge call answers sooner, so a
 * shorter one (`0.5`, or `5` with seconds meant) timed every call out at once. */
export const MIN_SETTING_MS = 100;

/** A duration from the environment: a number of milliseconds of at least
 * `MIN_SETTING_MS`, else `fallback`, and the person is told (`WAYMARKS_BRIDGE_TIMEOUT_MS=10s`
 * was NaN, and `0.5` half a millisecond: every request timed out at once, memory was off
 * and every request's content withheld, "took longer than NaN ms"; a NaN interval ran the
 * evolution check without a pause). */
function envMs(name: string, fallback: number): number {
	const raw = process.env[name];
	if (raw === undefined || raw === "") return fallback;
	const value = Number(raw);
	const said = `${name}=${JSON.stringify(raw).slice(0, 80)}`;
	if (Number.isFinite(value) && value >= MIN_SETTING_MS) return Math.min(value, MAX_TIMER_MS);
	badSettings.push(Number.isFinite(value) && value > 0
		? `${said} is under ${MIN_SETTING_MS} ms, shorter than any bridge call takes (seconds meant?); ${fallback} is used`
		: `${said} is not a number of milliseconds; ${fallback} is used`);
	return fallback;
}

export const EVOLVE_EVERY_MS = envMs("WAYMARKS_EVOLVE_INTERVAL_MS", 15_000);
export const BRIDGE_TIMEOUT_MS = envMs("WAYMARKS_BRIDGE_TIMEOUT_MS", 5000);
export const LONG_CALL_MS = 10 * 60 * 1000; // a confirmation waits for the person, not for a timer
