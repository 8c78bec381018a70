// Once per jest run, before the workers start: one RSA key for every sandbox the tests start (the workers
// inherit the environment). Making a 2048-bit key costs about a second of CPU, and a sandbox used to make
// its own, in every test file and in every test of the files that start one per test.
const { generateKeyPairSync } = require('node:crypto');

module.exports = async () => {
	process.env.SANDBOX_SIGNING_KEY ??= generateKeyPairSync('rsa', { modulusLength: 2048 })
		.privateKey.export({ type: 'pkcs8', format: 'pem' })
		.toString();
};
