import { Credentials } from 'n8n-core';
import {
	ICredentialsHelper,
	NodeHelpers,
	type ICredentialDataDecryptedObject,
	type ICredentialType,
	type IHttpRequestHelper,
	type IHttpRequestOptions,
	type INode,
	type INodeCredentialsDetails,
	type INodeParameters,
	type INodeProperties,
	type IRequestOptionsSimplified,
	type IWorkflowExecuteAdditionalData,
	type Workflow,
} from 'n8n-workflow';

import { CompanyRegistryApi } from '../credentials/CompanyRegistryApi.credentials';

/**
 * Credentials the way n8n's own CredentialsHelper treats them (packages/cli/src/credentials-helper.ts):
 * decrypted data gets the type's defaults; preAuthentication runs when the expirable field is empty or
 * the token was refused (after a 401), and its result is persisted so the next execution reuses it;
 * generic `authenticate` is resolved as an expression against `$credentials`.
 * The store is in memory, which stands in for n8n's encrypted database.
 */
export class TestCredentialsHelper extends ICredentialsHelper {
	private readonly types = new Map<string, ICredentialType>([
		['companyRegistryApi', new CompanyRegistryApi()],
	]);
	private readonly store = new Map<string, ICredentialDataDecryptedObject>();
	/** How often each credential's preAuthentication actually ran, and with which reason. */
	readonly preAuthentications: Array<{ id: string; expired: boolean }> = [];

	save(id: string, type: string, data: ICredentialDataDecryptedObject): void {
		this.type(type);
		this.store.set(id, { ...data });
	}

	stored(id: string): ICredentialDataDecryptedObject | undefined {
		const data = this.store.get(id);
		return data ? { ...data } : undefined;
	}

	private type(name: string): ICredentialType {
		const type = this.types.get(name);
		if (!type) throw new Error(`Unknown credential type ${name}`);
		return type;
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.type(type).properties;
	}

	async getCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<Credentials> {
		const data = this.storedOrFail(nodeCredentials);
		const credentials = new Credentials(
			{ id: nodeCredentials.id, name: nodeCredentials.name },
			type,
		);
		credentials.setData(data);
		return credentials;
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const data = this.storedOrFail(nodeCredentials);
		// As n8n does: fill every property the stored data lacks with the type's default.
		return NodeHelpers.getNodeParameters(
			this.type(type).properties,
			data as INodeParameters,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;
	}

	async updateCredentials(
		nodeCredentials: INodeCredentialsDetails,
		_type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.store.set(this.idOf(nodeCredentials), { ...data });
	}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.type(typeName);
		const options = requestOptions as IHttpRequestOptions;
		if (typeof authenticate === 'function') return await authenticate(credentials, options);
		if (authenticate?.type === 'generic' && workflow && node) {
			for (const [target, values] of Object.entries(authenticate.properties)) {
				const record = ((options as unknown as Record<string, Record<string, unknown>>)[target] ??=
					{});
				for (const [key, value] of Object.entries(values as Record<string, string>)) {
					record[key] = String(
						workflow.expression.getSimpleParameterValue(
							node,
							value,
							'internal',
							{ $credentials: credentials },
							undefined,
							'',
						) ?? '',
					);
				}
			}
		}
		return options;
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.type(typeName);
		const expirable = type.properties.find(
			(property) => property.type === 'hidden' && property.typeOptions?.expirable === true,
		);
		if (!expirable || typeof type.preAuthentication !== 'function') return undefined;
		// As n8n's CredentialsHelper: the credential Test's temporary node always fetches a fresh token.
		const isTestingCredentials =
			node.parameters?.temp === '' && node.type === 'n8n-nodes-base.noOp';
		if (credentials[expirable.name] !== '' && !credentialsExpired && !isTestingCredentials)
			return undefined;
		const nodeCredentials = node.credentials?.[typeName];
		this.preAuthentications.push({ id: nodeCredentials?.id ?? '', expired: credentialsExpired });
		const output = (await type.preAuthentication.call(
			helpers,
			credentials,
		)) as ICredentialDataDecryptedObject;
		if (output[expirable.name] === undefined || !nodeCredentials) return undefined;
		const stored = this.storedOrFail(nodeCredentials);
		this.store.set(this.idOf(nodeCredentials), { ...stored, ...output });
		return Object.assign(credentials, output);
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.type(typeName);
		if (typeof type.preAuthentication !== 'function') return undefined;
		return (await type.preAuthentication.call(
			helpers,
			credentials,
		)) as ICredentialDataDecryptedObject;
	}

	private idOf(nodeCredentials: INodeCredentialsDetails): string {
		if (!nodeCredentials.id) throw new Error(`Credential "${nodeCredentials.name}" has no id`);
		return nodeCredentials.id;
	}

	private storedOrFail(nodeCredentials: INodeCredentialsDetails): ICredentialDataDecryptedObject {
		const data = this.store.get(this.idOf(nodeCredentials));
		if (!data) throw new Error(`No credential with id ${nodeCredentials.id}`);
		return { ...data };
	}
}
