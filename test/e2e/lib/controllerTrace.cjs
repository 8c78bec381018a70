// A preload for a real n8n process (NODE_OPTIONS=--require <this>), used by test:n8n's scale check when
// TEST_N8N_TRACE is set (issue 20 item 5): the installed package's rate controller, told request by
// request from inside n8n: every start, every answer (status, the mode after it, the pace, the
// window's reckoning), and every controller timer (asked vs fired: timers late under load). Nothing
// in the package changes; this file only wraps its prototype once n8n loads it. Written as JSON lines to
// CONTROLLER_TRACE_FILE.<pid> when the process exits (n8n's task runners load no controller: no file).
'use strict';
const Module = require('node:module');
const fs = require('node:fs');
const path = require('node:path');

const file = process.env.CONTROLLER_TRACE_FILE;
const entries = [];
const now = () => performance.timeOrigin + performance.now();
let patched = false;

function windowSummary(window) {
	if (!window) return undefined;
	const summary = {};
	for (const [key, value] of Object.entries(window))
		if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string')
			summary[key] = value;
	return summary;
}

function patch(controllerModule, folder) {
	patched = true;
	const { RateController } = controllerModule;
	const { modeOf } = require(path.join(folder, 'modes.js'));
	const { realClock } = require(path.join(folder, '..', 'wait.js'));
	const proto = RateController.prototype;
	const describe = (controller, at) => {
		const { state } = controller;
		return {
			mode: modeOf(state, at).kind,
			pace: state.pace.rate,
			pausedUntil: state.pausedUntil > at ? state.pausedUntil : undefined,
			inFlight: state.inFlight,
		};
	};
	const start = proto.start;
	proto.start = function (tenant, at) {
		start.call(this, tenant, at);
		entries.push({ t: now(), ev: 'start', clock: at, ...describe(this, at) });
	};
	const release = proto.release;
	proto.release = function (tenant, report) {
		release.call(this, tenant, report);
		const at = Date.now();
		entries.push({
			t: now(),
			ev: 'answer',
			status: report.status,
			sentAt: report.sentAt,
			...describe(this, at),
			window: windowSummary(this.state.window),
			// This process's CPU so far (ms): what n8n and the package spend per lookup, whatever the load.
			cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
		});
	};
	const sleep = realClock.sleep;
	realClock.sleep = async function (ms, signal) {
		const asked = now();
		const completed = await sleep.call(this, ms, signal);
		entries.push({ t: now(), ev: 'timer', askedMs: ms, lateMs: now() - asked - ms, completed });
		return completed;
	};
}

if (file) {
	const load = Module._load;
	Module._load = function (request, parent) {
		const loaded = load.apply(this, arguments);
		if (!patched && request.endsWith('controller') && parent?.filename) {
			const resolved = path.resolve(path.dirname(parent.filename), request);
			if (/n8n-nodes-company-registry\/dist\/.*rateControl\/controller$/.test(resolved))
				patch(loaded, path.dirname(resolved));
		}
		return loaded;
	};
	process.on('exit', () => {
		if (entries.length > 0)
			fs.writeFileSync(
				`${file}.${process.pid}`,
				entries.map((entry) => JSON.stringify(entry)).join('\n'),
			);
	});
}
