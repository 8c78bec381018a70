import { ExecuteContext, RoutingNode } from 'n8n-core';
import {
	createRunExecutionData,
	Workflow,
	type ICredentialDataDecryptedObject,
	type ICredentialTestRequest,
	type ICredentialType,
	type INode,
	type INodeType,
	type INodeTypes,
} from 'n8n-workflow';

import { CompanyRegistryApi } from '../credentials/CompanyRegistryApi.credentials';
import type { Engine } from './engine';

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

interface RequestFailure {
	message?: string;
	cause?: { code?: string; response?: { status?: number; statusText?: string } };
}

/**
 * The credential's "Test" button as n8n 2.41.1 runs it (packages/cli CredentialsTester, runRequestTest,
 * for a credential type that declares `test`): a temporary No Operation node whose one property routes
 * the test request, run by n8n-core's RoutingNode in 'internal' mode with the decrypted credential, so
 * the request goes through httpRequestWithAuthentication with preAuthentication and `authenticate`.
 * Its verdict is n8n's: a rule matching the status, else any status outside 2xx is an Error with the
 * status text, a network failure an Error with its code; a 2xx answer, a responseSuccessBody rule whose
 * key has its value in the answer.
 */
export async function testCredential(
	engine: Engine,
	credentialId: string,
	type: ICredentialType = new CompanyRegistryApi(),
): Promise<CredentialTestResult> {
	const test = type.test as ICredentialTestRequest;
	const name = 'Company Registry account';
	const credentialsDecrypted = {
		id: credentialId,
		name,
		type: type.name,
		data: {} as ICredentialDataDecryptedObject,
	};
	const noOp = engine.nodeTypes.getByNameAndVersion('n8n-nodes-base.noOp');
	const node: INode = {
		id: 'temp',
		parameters: {},
		name: 'Temp-Node',
		type: noOp.description.name,
		typeVersion: 1,
		position: [0, 0],
		credentials: { [type.name]: { id: credentialId, name } },
	};
	const nodeTypeCopy: INodeType = {
		description: {
			...noOp.description,
			credentials: [{ name: type.name, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: test.request },
					default: '',
				},
			],
		},
	};
	const nodeTypes: INodeTypes = {
		getByName: () => nodeTypeCopy,
		getByNameAndVersion: () => nodeTypeCopy,
		getKnownTypes: () => ({}),
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const additionalData = engine.additionalData('internal', {
		name: 'credential test',
		nodes: [node],
		connections: {},
	});
	// The editor sends the form's values, every field with its default.
	credentialsDecrypted.data = await engine.credentials.getDecrypted(
		additionalData,
		{ id: credentialId, name },
		type.name,
	);
	const executeContext = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		createRunExecutionData({ resultData: { runData: {} } }),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	let response: Awaited<ReturnType<RoutingNode['runNode']>>;
	try {
		response = await new RoutingNode(executeContext, nodeTypeCopy, credentialsDecrypted).runNode();
	} catch (error) {
		const failure = error as RequestFailure;
		const response = failure.cause?.response;
		if (response?.status !== undefined) {
			const rule = test.rules?.find(
				(candidate) =>
					candidate.type === 'responseCode' && candidate.properties.value === response.status,
			);
			if (rule) return { status: 'Error', message: rule.properties.message };
			if (response.status < 199 || response.status > 299) {
				return {
					status: 'Error',
					message: response.statusText || `Received HTTP status code: ${response.status}`,
				};
			}
		} else if (failure.cause?.code) {
			return { status: 'Error', message: failure.cause.code };
		}
		return { status: 'Error', message: String(failure.message) };
	}
	// A 2xx answer: n8n then checks each responseSuccessBody rule against the first item's json.
	for (const rule of test.rules ?? []) {
		if (rule.type !== 'responseSuccessBody') continue;
		const json = response?.[0]?.[0]?.json as unknown;
		if (valueAt(json, rule.properties.key) === rule.properties.value)
			return { status: 'Error', message: rule.properties.message };
	}
	return { status: 'OK', message: 'Connection successful!' };
}

/** lodash's `get` for a dotted key, as n8n reads a responseSuccessBody rule's key. */
function valueAt(value: unknown, key: string): unknown {
	let current = value;
	for (const part of key.split('.')) {
		if (current === null || current === undefined) return undefined;
		current = (current as Record<string, unknown>)[part];
	}
	return current;
}
