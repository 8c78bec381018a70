// Jest's runtime, keeping across the test files of one worker what cannot change during a run: the text
// of node_modules files and V8's compiled code of every module. Each test file still gets its own
// registry and globals, and every module is still evaluated afresh in its context: only reading and
// compiling are shared. An engine test file loads some 2,000 modules (n8n-core, n8n-workflow and
// theirs), about 1.1 s of CPU; this saves about 0.3 s of it (8 files that only load the harness, in
// band, a loaded machine: 12.2 and 13.1 s of CPU with jest's runtime, 10.5 and 10.7 s with this one).
// V8 checks a code cache against its source and rejects it when they differ, and a cache is only
// offered for the same source, so a changed file compiles as before (Stryker runs jest again and again
// in one process: its mutants are switched at run time, not in the source).
// Where the test files of a worker run in one vm context (test/workerContextEnvironment.js), the modules of
// node_modules are evaluated once, by the first file that needs one, and the later files' registries are
// handed the same module: the project's own files (nodes/, credentials/, harness/, test/) are still
// evaluated afresh in each file.
const { Script, SyntheticModule } = require('node:vm');
const Runtime = require('jest-runtime').default;
const { handlePotentialSyntaxError } = require('@jest/transform');
const { invariant } = require('jest-util');

const WorkerContextEnvironment = require('./workerContextEnvironment');

const IN_NODE_MODULES = /[\\/]node_modules[\\/]/;
/** node_modules file -> what transformFile gave (jest transforms none of them: transformIgnorePatterns). */
const transformed = new Map();
/** file -> the wrapped source last compiled, and a Script compiled from it (whose code cache is taken once it has run). */
const scripts = new Map();
/** vm context -> node_modules file -> its module, evaluated once in that context. */
const sharedByContext = new WeakMap();
/** The runtime of the test file this worker runs now: a shared module's later requires go to its registry. */
let current;

class WorkerCacheRuntime extends Runtime {
	constructor(...args) {
		super(...args);
		current = this;
		const context = this._environment.getVmContext();
		this._shared = sharedByContext.get(context) ?? new Map();
		sharedByContext.set(context, this._shared);
		this._sharedLoading = 0;
	}

	_loadModule(localModule, from, moduleName, modulePath, options, moduleRegistry) {
		if (
			options?.isInternalModule ||
			moduleRegistry !== this._moduleRegistry ||
			!IN_NODE_MODULES.test(modulePath)
		) {
			super._loadModule(localModule, from, moduleName, modulePath, options, moduleRegistry);
			return;
		}
		const shared = this._shared.get(modulePath);
		if (shared !== undefined) {
			moduleRegistry.set(modulePath, shared);
			localModule.exports = shared.exports;
			localModule.loaded = true;
			return;
		}
		// Registered before it runs, as jest registers a module: a cycle back to it gets what it has so far.
		this._shared.set(modulePath, localModule);
		const global = this._environment.global;
		const globalsBefore = this._sharedLoading === 0 ? new Set(Reflect.ownKeys(global)) : undefined;
		this._sharedLoading++;
		try {
			super._loadModule(localModule, from, moduleName, modulePath, options, moduleRegistry);
		} catch (error) {
			this._shared.delete(modulePath);
			throw error;
		} finally {
			this._sharedLoading--;
			if (globalsBefore) WorkerContextEnvironment.keepGlobalsAdded(global, globalsBefore);
		}
	}

	// A shared module outlives the file that loaded it: what it requires later (a require inside a
	// function) goes to the registry of the file running then, as its first requires went to the first's.
	_createRequireImplementation(from, options) {
		if (options?.isInternalModule || this._shared.get(from.filename) !== from) {
			return super._createRequireImplementation(from, options);
		}
		const { filename } = from;
		const moduleRequire = (moduleName) => current.requireModuleOrMock(filename, moduleName);
		moduleRequire.extensions = Object.create(null);
		moduleRequire.resolve = (moduleName, resolveOptions) =>
			current._requireResolve(filename, moduleName, resolveOptions);
		moduleRequire.resolve.paths = (moduleName) =>
			current._requireResolvePaths(filename, moduleName);
		const refused = () => true;
		moduleRequire.cache = new Proxy(Object.create(null), {
			defineProperty: refused,
			deleteProperty: refused,
			get: (_target, key) =>
				typeof key === 'string' ? current._moduleRegistry.get(key) : undefined,
			getOwnPropertyDescriptor: () => ({ configurable: true, enumerable: true }),
			has: (_target, key) => typeof key === 'string' && current._moduleRegistry.has(key),
			ownKeys: () => Array.from(current._moduleRegistry.keys()),
			set: refused,
		});
		Object.defineProperty(moduleRequire, 'main', {
			enumerable: true,
			get: () => current._mainModule,
		});
		return moduleRequire;
	}

	transformFile(filename, options) {
		if (options?.isInternalModule || !IN_NODE_MODULES.test(filename)) {
			return super.transformFile(filename, options);
		}
		const kept = transformed.get(filename);
		if (kept === undefined) {
			const code = super.transformFile(filename, options);
			transformed.set(filename, { code, fileTransform: this._fileTransforms.get(filename) });
			return code;
		}
		this._fileTransforms.set(filename, kept.fileTransform);
		return kept.code;
	}

	// Whether a require gives a mock: jest asks the resolver for the module's id first, before every require,
	// though with no automock and nothing mocked by the file (no test here mocks a module) the answer is no.
	_shouldMockCjs(from, moduleName, explicitShouldMock) {
		if (!this._shouldAutoMock && explicitShouldMock.size === 0) return false;
		return super._shouldMockCjs(from, moduleName, explicitShouldMock);
	}

	createScriptFromCode(scriptSource, filename) {
		const scriptFilename = this._resolver.isCoreModule(filename)
			? `jest-nodejs-core-${filename}`
			: filename;
		const source = this.wrapCodeInModuleWrapper(scriptSource);
		const earlier = scripts.get(filename);
		if (earlier !== undefined && earlier.source === source) {
			// Taken after the first file ran the module: it holds the functions compiled since, too.
			earlier.cachedData ??= earlier.script.createCachedData();
		}
		try {
			const script = new Script(source, {
				cachedData: earlier?.source === source ? earlier.cachedData : undefined,
				columnOffset: this._fileTransforms.get(filename)?.wrapperLength,
				displayErrors: true,
				filename: scriptFilename,
				// As jest's own (jest-runtime's createScriptFromCode, which this replaces).
				importModuleDynamically: async (specifier) => {
					invariant(
						typeof SyntheticModule === 'function',
						'You need to run with a version of node that supports ES Modules in the VM API. See https://jestjs.io/docs/ecmascript-modules',
					);
					const context = this._environment.getVmContext?.();
					invariant(context, 'Test environment has been torn down');
					const module = await this.resolveModule(specifier, scriptFilename, context);
					return this.linkAndEvaluateModule(module);
				},
			});
			if (earlier === undefined || earlier.source !== source) {
				scripts.set(filename, { source, script, cachedData: undefined });
			}
			return script;
		} catch (error) {
			throw handlePotentialSyntaxError(error);
		}
	}
}

module.exports = WorkerCacheRuntime;
