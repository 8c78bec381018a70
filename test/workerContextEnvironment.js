// Jest's node environment, with one vm context (one set of globals and built-ins) per jest worker instead
// of one per test file, so that the modules of node_modules (n8n-core, n8n-workflow and theirs, some 1,750)
// are evaluated once per worker and handed to each later test file (test/workerCacheRuntime.js): loading
// them was about 0.7 s of CPU in each of the 66 engine files. They must live in the context the test file
// runs in: an object made in another context fails the file's `instanceof Error`, and the project's code
// does check it. n8n itself is one process that runs execution after execution on the same modules.
// Each test file still gets its own module registry (the project's code, nodes/ and harness/ included,
// evaluated afresh), its own fake timers and mocks, and the globals as the first file found them: what a
// file added to the context (jest's describe/expect, its state) is taken away before the next one starts,
// but for what node_modules' code put there while loading (tslib's helpers, undici's dispatcher), which the
// shared modules still hold.
const { ModernFakeTimers, LegacyFakeTimers } = require('@jest/fake-timers');
const { ModuleMocker } = require('jest-mock');
const { TestEnvironment: NodeEnvironment } = require('jest-environment-node');

/**
 * This worker's context and the state of its globals when it was made, once the first file made it; by
 * the globals the project's configuration asks for (a process that runs jest again with another, as
 * Stryker does, gets a context of its own).
 */
const workers = new Map();
/** The context the file running now was given. */
let worker;

/** The globals the context holds now, each with its descriptor. */
function globalsOf(global) {
	return new Map(
		Reflect.ownKeys(global).map((key) => [key, Reflect.getOwnPropertyDescriptor(global, key)]),
	);
}

function sameDescriptor(a, b) {
	return (
		Object.is(a.value, b.value) &&
		a.get === b.get &&
		a.set === b.set &&
		a.writable === b.writable &&
		a.enumerable === b.enumerable &&
		a.configurable === b.configurable
	);
}

class WorkerContextEnvironment extends NodeEnvironment {
	constructor(config, context) {
		super(config, context);
		const { projectConfig } = config;
		const asked = JSON.stringify([projectConfig.globals, projectConfig.testEnvironmentOptions]);
		worker = workers.get(asked);
		if (worker === undefined) {
			worker = {
				context: this.context,
				global: this.global,
				globals: globalsOf(this.global),
				kept: new Set(),
			};
			workers.set(asked, worker);
			return;
		}
		// The context super() just made is dropped: this file runs in the worker's, with what jest makes
		// anew for each file: its own process object (process.env copied now: Stryker names the mutant to
		// switch on there) and its own copy of the configuration's globals.
		const made = this.global;
		this.context = worker.context;
		this.global = worker.global;
		this.restoreGlobals();
		this.global.process = made.process;
		for (const key of Object.keys(projectConfig.globals)) this.global[key] = made[key];
		this.moduleMocker = new ModuleMocker(this.global);
		this.fakeTimers = new LegacyFakeTimers({
			config: projectConfig,
			global: this.global,
			moduleMocker: this.moduleMocker,
			timerConfig: {
				idToRef: (id) => ({
					id,
					ref() {
						return this;
					},
					unref() {
						return this;
					},
				}),
				refToId: (timer) => timer?.id,
			},
		});
		this.fakeTimersModern = new ModernFakeTimers({ config: projectConfig, global: this.global });
	}

	/** Puts the globals back as the first file found them, but for what node_modules' code added (keep). */
	restoreGlobals() {
		const global = this.global;
		for (const key of Reflect.ownKeys(global)) {
			if (!worker.globals.has(key) && !worker.kept.has(key)) delete global[key];
		}
		for (const [key, descriptor] of worker.globals) {
			const now = Reflect.getOwnPropertyDescriptor(global, key);
			if (now === undefined || !sameDescriptor(now, descriptor))
				Reflect.defineProperty(global, key, descriptor);
		}
	}
}

/**
 * Called by the runtime around the first evaluation of a shared module: what it added to the globals
 * stays for later files. `before`: the global keys before it ran.
 */
WorkerContextEnvironment.keepGlobalsAdded = (global, before) => {
	if (worker === undefined || worker.global !== global) return;
	for (const key of Reflect.ownKeys(global)) {
		if (!before.has(key) && !worker.globals.has(key)) worker.kept.add(key);
	}
};

module.exports = WorkerContextEnvironment;
