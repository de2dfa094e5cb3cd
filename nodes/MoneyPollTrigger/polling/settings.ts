import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { TransactionResource } from '../../api/values';
import { asStringList, type EventFilters } from '../../events/filters';

/** The trigger's parameters, read once per poll. */

export interface PollSettings {
	resources: TransactionResource[];
	filters: EventFilters;
	overlapMs: number;
	maxPages: number;
	maxChecks: number;
	maxWatched: number;
}

export const DEFAULT_MAX_WATCHED = 5000;

export function listQuery(filters: EventFilters): IDataObject {
	return filters.channels.length === 1 ? { channel: filters.channels[0] } : {};
}

export function settingsOf(context: IPollFunctions): PollSettings {
	const resource = context.getNodeParameter('resource', 'both') as string;
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const resources: TransactionResource[] =
		resource === 'charge' ? ['charge'] : resource === 'payout' ? ['payout'] : ['charge', 'payout'];
	const number = (value: unknown, fallback: number, min: number) =>
		typeof value === 'number' && Number.isFinite(value) && value >= min ? Math.floor(value) : fallback;
	return {
		resources,
		filters: {
			resources,
			statuses: asStringList(context.getNodeParameter('statuses', [])),
			channels: asStringList(context.getNodeParameter('channels', [])),
		},
		overlapMs: number(options.overlapSeconds, 120, 0) * 1000,
		maxPages: number(options.maxPages, 10, 1),
		maxChecks: number(options.maxChecksPerPoll, 50, 0),
		maxWatched: number(options.maxWatched, DEFAULT_MAX_WATCHED, 1),
	};
}

/** The poll's error when more PENDING transactions are to be watched than Max Watched Transactions allows. */
export function tooManyToWatch(context: IPollFunctions, count: number, settings: PollSettings): NodeOperationError {
	return new NodeOperationError(
		context.getNode(),
		`${count} PENDING transactions to watch, more than Max Watched Transactions (${settings.maxWatched})`,
		{
			description:
				"Raise Max Watched Transactions in the trigger's Options (or narrow Resource or Channels). This poll emitted and saved nothing, so no event is lost: the next poll after the change starts from the same point.",
		},
	);
}
