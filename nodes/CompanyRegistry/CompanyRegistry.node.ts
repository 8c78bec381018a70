import {
	NodeConnectionTypes,
	NodeOperationError,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import * as company from './actions/company';
import { runsAsTool } from './actions/company/lookup.operation';
import { router } from './actions/router';

/**
 * What an agent reads about the tool. n8n's own would be "Look up company in Company Registry": with a
 * `toolDescription` property of its own the node gives this by default, and the user can edit it.
 */
export const TOOL_DESCRIPTION =
	"Looks a company up in its country's government company register. Arguments: country (two-letter ISO code such as 'de', " +
	"three-letter code such as 'deu', or English name such as 'Germany'); companyId (the registration number as the register " +
	"writes it, e.g. 'HRB12345'); state (United States only, where companies are registered per state: 'ca' or 'California'; " +
	'leave it empty elsewhere). Returns a list with one object: isRegistered true with officialName, status (Active or Inactive), ' +
	'registrationDate (yyyy-mm-dd) and registeredAddress; isRegistered false when the register does not know the company (an ' +
	"answer, not an error, with 'N/A' fields); or error, a text saying what went wrong and which input is accepted.";

export class CompanyRegistry implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Company Registry',
		name: 'companyRegistry',
		icon: { light: 'file:companyRegistry.svg', dark: 'file:companyRegistry.dark.svg' },
		group: ['transform'],
		version: 1,
		// The operation's name, in Title Case as n8n's guidelines want a subtitle.
		subtitle: '={{$parameter["operation"] === "watch" ? "Watch for Changes" : "Look Up"}}',
		description:
			"Check a company against its country's government register: whether it is registered, its official name, status, registration date and address",
		defaults: { name: 'Company Registry' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		// Look Up splits by registration; Watch for Changes has one output for the changes it found.
		outputs: `={{ $parameter.operation === "watch" ? [{ type: "${NodeConnectionTypes.Main}", displayName: "Changes" }] : [{ type: "${NodeConnectionTypes.Main}", displayName: "Registered" }, { type: "${NodeConnectionTypes.Main}", displayName: "Not Registered" }] }}`,
		credentials: [{ name: 'companyRegistryApi', required: true }],
		properties: [
			{
				displayName: 'Description',
				name: 'toolDescription',
				type: 'string',
				default: TOOL_DESCRIPTION,
				required: true,
				typeOptions: { rows: 4 },
				displayOptions: { show: { '@tool': [true] } },
				description:
					'What the AI agent reads about this tool: when to use it, its arguments and what it returns',
			},
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [{ name: 'Company', value: 'company' }],
				default: 'company',
			},
			...company.description,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		// Hidden from agents in the editor; this also stops a workflow edited by hand.
		if (this.getNodeParameter('operation', 0) === 'watch' && runsAsTool.call(this)) {
			throw new NodeOperationError(
				this.getNode(),
				'Watch for Changes is not available to AI agents',
				{
					description:
						'Use the Look Up operation in a tool; watch companies with a scheduled workflow instead.',
				},
			);
		}
		return await router.call(this);
	}
}
