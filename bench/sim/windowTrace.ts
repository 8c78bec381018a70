// npx tsx bench/sim/windowTrace.ts <trace.json> [<other trace.json>]
// A fixed window's run told window by window (issue 20 item 5), from a trace of test:n8n's scale check
// (TEST_N8N_TRACE) or of bench:sim (--requests): per window aligned to the clock, the requests that
// arrived, were admitted and refused, when the first arrived and the last admitted one did (ms into the
// window), and how far the window's budget went unused. Then where the node's time went beyond the floor:
// before the first lookup (the token), the windows not filled, after the last answer (n8n's own work).
// With two traces, their windows side by side.
import { readFileSync } from 'node:fs';

import type { LookupTraceEntry } from '../../sandbox/server';

interface Trace {
	family: string;
	windowMs?: number;
	nodeStartedAt: number;
	nodeMs: number;
	floorMs: number;
	lookups: LookupTraceEntry[];
	controller: Array<{ t: number; ev: string; lateMs?: number; askedMs?: number }>;
}

interface WindowRow {
	index: number;
	arrived: number;
	admitted: number;
	refused: number;
	firstArrivalMs: number | undefined;
	lastAdmittedMs: number | undefined;
}

const LIMIT = 100;

function windows(trace: Trace): WindowRow[] {
	const windowMs = trace.windowMs ?? 1000;
	const firstWindow = Math.floor(trace.nodeStartedAt / windowMs);
	const rows = new Map<number, WindowRow>();
	for (const lookup of trace.lookups) {
		const index = Math.floor(lookup.arrivedAt / windowMs) - firstWindow;
		const into = lookup.arrivedAt % windowMs;
		const row = rows.get(index) ?? {
			index,
			arrived: 0,
			admitted: 0,
			refused: 0,
			firstArrivalMs: undefined,
			lastAdmittedMs: undefined,
		};
		row.arrived += 1;
		if (lookup.status === 429) row.refused += 1;
		else {
			row.admitted += 1;
			row.lastAdmittedMs = Math.max(row.lastAdmittedMs ?? 0, into);
		}
		row.firstArrivalMs = Math.min(row.firstArrivalMs ?? windowMs, into);
		rows.set(index, row);
	}
	return [...rows.values()].sort((a, b) => a.index - b.index);
}

function summary(trace: Trace): string[] {
	const windowMs = trace.windowMs ?? 1000;
	const lookups = [...trace.lookups].sort((a, b) => a.arrivedAt - b.arrivedAt);
	const first = lookups[0]?.arrivedAt ?? Number.NaN;
	const lastAnswer = Math.max(...lookups.map((lookup) => lookup.answeredAt ?? 0));
	const end = trace.nodeStartedAt + trace.nodeMs;
	const rows = windows(trace);
	const unused = rows.reduce((sum, row) => sum + Math.max(0, LIMIT - row.admitted), 0);
	const timers = trace.controller.filter((entry) => entry.ev === 'timer');
	const late = timers.map((entry) => entry.lateMs ?? 0).sort((a, b) => a - b);
	const quantile = (q: number) => late[Math.min(late.length - 1, Math.floor(q * late.length))];
	const lines = [
		`${trace.family}: node ${(trace.nodeMs / 1000).toFixed(3)} s, floor ${(trace.floorMs / 1000).toFixed(3)} s, vs_floor ${(trace.nodeMs / trace.floorMs).toFixed(3)}; started ${(trace.nodeStartedAt % windowMs).toFixed(0)} ms into a window`,
		`  start -> first lookup ${(first - trace.nodeStartedAt).toFixed(1)} ms; last answer -> node end ${(end - lastAnswer).toFixed(1)} ms; windows used ${rows.length}; budget unused in windows before the last ${unused - Math.max(0, LIMIT - (rows.at(-1)?.admitted ?? 0))}`,
		`  requests ${lookups.length}, 429s ${lookups.filter((lookup) => lookup.status === 429).length}`,
	];
	if (late.length > 0)
		lines.push(
			`  controller timers ${late.length}: late p50 ${quantile(0.5).toFixed(1)} ms, p90 ${quantile(0.9).toFixed(1)} ms, max ${late.at(-1)!.toFixed(1)} ms`,
		);
	return lines;
}

const cell = (row: WindowRow | undefined) =>
	row
		? `${String(row.arrived).padStart(4)} ${String(row.admitted).padStart(4)} ${String(row.refused).padStart(4)} ${String(Math.round(row.firstArrivalMs ?? 0)).padStart(5)} ${String(Math.round(row.lastAdmittedMs ?? 0)).padStart(5)}`
		: ' '.repeat(26);

const traces = process.argv.slice(2).map((file) => JSON.parse(readFileSync(file, 'utf8')) as Trace);
for (const trace of traces) for (const line of summary(trace)) console.log(line);
const tables = traces.map(windows);
const last = Math.max(...tables.map((rows) => rows.at(-1)?.index ?? 0));
console.log(
	`window ${traces.map(() => ' sent  adm  429 first lastA').join(' | ')}   (first, lastA: ms into the window of the first arrival, the last admission)`,
);
for (let index = 0; index <= last; index++)
	console.log(
		`${String(index).padStart(6)} ${tables.map((rows) => cell(rows.find((row) => row.index === index))).join(' | ')}`,
	);
