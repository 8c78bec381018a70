import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import * as company from './actions/company';
import { router } from './actions/router';

export class CompanyRegistry implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Company Registry',
		name: 'companyRegistry',
		icon: { light: 'file:companyRegistry.svg', dark: 'file:companyRegistry.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
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
		return await router.call(this);
	}
}
