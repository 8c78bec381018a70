import type { INodeProperties } from 'n8n-workflow';

import * as lookUp from './lookup.operation';
import * as watch from './watch.operation';

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
				action: 'Look up company',
				description:
					"Look a company up in its country's government register by company ID: registration, official name, status (Active or Inactive), registration date and address",
			},
			{
				name: 'Watch for Changes',
				value: 'watch',
				action: 'Watch companies for changes',
				description:
					'Look companies up and output only those whose registration, status (Active/Inactive), official name or address changed since the last run',
				// Not for agents: it compares with state kept per workflow and node, saved only by production
				// runs, and answers "what changed since the last run", not a question about a company.
				displayOptions: { show: { '@tool': [false] } },
			},
		],
		default: 'lookUp',
	},
	...lookUp.description,
	...watch.description,
];
