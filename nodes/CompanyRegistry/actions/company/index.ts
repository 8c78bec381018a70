import type { INodeProperties } from 'n8n-workflow';

import * as lookUp from './lookup.operation';

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['company'] } },
		options: [
			{
				name: 'Look Up',
				value: 'lookUp',
				action: 'Look up a company',
				description:
					"Look a company up in its country's government register by company ID: registration, official name, status (Active or Inactive), registration date and address",
			},
		],
		default: 'lookUp',
	},
	...lookUp.description,
];
