import type { INodeProperties, NodeHint } from 'n8n-workflow';

import type { TransactionResource } from '../../api/values';

/** Preview Only on Charge → Create and Payout → Create (helpers/create/preview.ts). */
export const previewField = (resource: TransactionResource): INodeProperties => ({
	displayName: 'Preview Only',
	name: 'preview',
	type: 'boolean',
	default: false,
	noDataExpression: true,
	description: `Whether to check every row as the create would and send nothing that moves money: each row's verdict (would send, or would refuse and why), the run's totals${resource === 'payout' ? ' against the account balance and how long the velocity limit makes the run' : ''}. Run the workflow anew after a preview: a Retry of a preview's execution keeps the preview's output.`,
});

const PAYOUT_CREATE = '$parameter.resource === "payout" && $parameter.operation === "create" && $parameter.preview !== true';

/**
 * Before a payout run, in the editor. n8n shows a hint's message as written (NodeHelpers.getNodeHints
 * evaluates only displayCondition), and the editor cannot read the credential's velocity settings:
 * the figures are those of the Money API's default limit (20 payouts per 5 minutes, helpers/create/pacing.ts);
 * Preview Only gives this run's figure at the credential's limit.
 */
export const paceHints: NodeHint[] = [
	{
		message:
			'This payout run has more than 20 rows. At the Money API’s default velocity limit of 20 payouts per 5 minutes, the node paces the run: each 20 rows after the first 20 wait 5 minutes (60 rows take at least 10 minutes, 200 rows 45 minutes). Progress is written to n8n’s log. Turn on Preview Only to see this run’s length at your credential’s limit, without sending anything.',
		type: 'info',
		location: 'outputPane',
		whenToDisplay: 'beforeExecution',
		displayCondition: `={{ ${PAYOUT_CREATE} && $input.all().length > 20 && $input.all().length <= 240 }}`,
	},
	{
		message:
			'This payout run has more than 240 rows. At the Money API’s default velocity limit of 20 payouts per 5 minutes its waits reach the default Maximum Total Wait of 60 minutes at about the 240th row: the rows after it would not be sent. Raise Maximum Total Wait (Options) or split the run; turn on Preview Only to see the figures at your credential’s limit, without sending anything.',
		type: 'warning',
		location: 'outputPane',
		whenToDisplay: 'beforeExecution',
		displayCondition: `={{ ${PAYOUT_CREATE} && $input.all().length > 240 }}`,
	},
];
