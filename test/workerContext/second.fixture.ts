import { reportAndMark } from './report';

// One of the pair test/unit/workerContext.test.ts runs in one jest worker.
it('reports what the file before it left, and leaves the same', () => {
	reportAndMark('second');
});
