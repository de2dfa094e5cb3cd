import type { INodeProperties } from 'n8n-workflow';

import type { TransactionResource } from '../../api/values';

/** Preview Only on Charge → Create and Payout → Create (helpers/create/preview/). */
export const previewField = (resource: TransactionResource): INodeProperties => ({
	displayName: 'Preview Only',
	name: 'preview',
	type: 'boolean',
	default: false,
	noDataExpression: true,
	description: `Whether to check every row as the create would and send nothing that moves money: each row's verdict (would send, or would refuse and why), the run's totals${resource === 'payout' ? ' against the account balance and how long the velocity limit makes the run' : ''}`,
});
