// Which tests target each module of the mutation run (npm run test:mutation -- --mutate <module>, or
// --each): a mutant of a module runs only these, so a module takes minutes instead of the whole suite's
// hours. A module missing here is mutated against the whole suite. A test that kills a module's mutants
// belongs in its list: the run says which mutants survive.
export const TARGETS = {
	'nodes/shared/model/companyRecord.ts': [
		'test/unit/model/companyRecord.test.ts',
		'test/unit/model/companyRecord.edges.test.ts',
	],
	'nodes/shared/model/lookupKey.ts': [
		'test/unit/model/lookupKey.test.ts',
		'test/unit/model/lookupKey.edges.test.ts',
	],
	'nodes/shared/transport/registryError.ts': ['test/unit/transport/registryError.test.ts'],
	'credentials/CompanyRegistryApi.credentials.ts': [
		'test/unit/uxGuidelines.test.ts',
		'test/integration/credentials.test.ts',
		'test/integration/credentialTest.test.ts',
		'test/integration/tokenRefusals.test.ts',
		'test/integration/tokenDeadline.test.ts',
	],
};
