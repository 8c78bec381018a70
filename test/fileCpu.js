// Opt-in (npm run test:cpu): each test file's own CPU seconds beside its wall seconds, one JSON line a
// file in $FILE_CPU_LOG. On a shared, loaded machine a file's wall time says more about its neighbours
// than about itself; its CPU, and the gap between the two (what it waits for: sockets, servers, real
// timers), say where the suite's time goes. Counted from before the file's imports (the engine's modules
// are most of an engine file's CPU) to its last afterAll, in its jest worker (the sandbox, in-process,
// counts too).
const { appendFileSync } = require('node:fs');

const startCpu = process.cpuUsage();
const startWall = process.hrtime.bigint();

afterAll(() => {
	const { user, system } = process.cpuUsage(startCpu);
	const line = {
		file: expect.getState().testPath,
		cpuS: (user + system) / 1e6,
		wallS: Number(process.hrtime.bigint() - startWall) / 1e9,
	};
	appendFileSync(process.env.FILE_CPU_LOG, `${JSON.stringify(line)}\n`);
});
