// Copies what TypeScript does not emit (icons and codex files) next to the built nodes and credentials.
const path = require('node:path');
const { task, src, dest } = require('gulp');

task('build:icons', copyAssets);

function copyAssets() {
	const nodeAssets = src(path.resolve('nodes', '**', '*.{png,svg,json}'), { encoding: false }).pipe(
		dest(path.resolve('dist', 'nodes')),
	);
	const credentialAssets = src(path.resolve('credentials', '**', '*.{png,svg}'), {
		encoding: false,
		allowEmpty: true,
	}).pipe(dest(path.resolve('dist', 'credentials')));
	return Promise.all([streamDone(nodeAssets), streamDone(credentialAssets)]);
}

function streamDone(stream) {
	return new Promise((resolve, reject) => stream.on('finish', resolve).on('error', reject));
}
