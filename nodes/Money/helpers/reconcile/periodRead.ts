import type { IExecuteFunctions } from 'n8n-workflow';

import type { TransactionResource } from '../../../api/values';
import type { PeriodIndex } from './apiReads';
import type { Period } from './input';
import { RECONCILIATION_STATUSES, type Outcomes } from './types';

/**
 * How Reconcile read its period, said above the output (n8n's execution hints) and on every output
 * item: how many transactions it read and the API's count of them. A period that holds no
 * transaction of the resource while records were given is almost always a wrong period: every
 * record says so, beside its verdict.
 */
export function tellPeriodRead(
	context: IExecuteFunctions,
	resource: TransactionResource,
	outcomes: Outcomes,
	read: PeriodIndex['read'],
	period: Period,
): void {
	const { transactions, total } = read;
	const noun = (count: number) => `${count} ${resource}${count === 1 ? '' : 's'}`;
	const records = outcomes.matched.length + outcomes.mismatched.length + outcomes.missing.length;
	const note =
		transactions === 0 && records > 0
			? `No ${resource} of the Money API was created in the period (${period.start_date} to ${period.end_date}): the period is probably wrong. Check Created After and Created Before.`
			: undefined;
	const line =
		note ??
		(transactions === total
			? `Read ${noun(transactions)} created in the period, as many as the Money API counts (${total})`
			: `Read ${noun(transactions)} created in the period; the Money API counted ${total} when the node last counted them`);
	context.addExecutionHints({ message: line, location: 'outputPane', type: note ? 'warning' : 'info' });
	for (const status of RECONCILIATION_STATUSES) {
		for (const outcome of outcomes[status]) {
			outcome.reconciliation.period_read = { transactions, api_total: total };
			if (note && outcome.record) outcome.reconciliation.note = note;
		}
	}
}
