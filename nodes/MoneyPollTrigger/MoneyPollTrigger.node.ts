import type { INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { LIST_PAGE_SIZE_MAX, MONEY_API_CREDENTIAL_TYPE } from '../api/values';
import { channelsFilter, statusesFilter } from '../events/filterFields';
import type { MoneyEventItem } from '../events/item';
import { pollNewTransactions } from './polling/listing';
import { initialiseResource } from './polling/initialise';
import { newestEvent, recheckWatched } from './polling/reads';
import { recentReversals, wantsReversals } from './polling/reversals';
import { emitEvents } from './polling/emissions';
import { claimPoll } from './polling/inFlight';
import { DEFAULT_MAX_WATCHED, settingsOf, tooManyToWatch, type PollSettings } from './polling/settings';
import { forgetStatusesBeyond, forgetUnselected, loadState, MAX_REMEMBERED_STATUSES, type PollState } from './polling/state';
import { backstopSettingsOf, backstopState, DEFAULT_GRACE_MINUTES, firstPollOf, handOver, reportFailure } from './polling/backstop';

export class MoneyPollTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Money Poll Trigger',
		name: 'moneyPollTrigger',
		icon: { light: 'file:money.svg', dark: 'file:money.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["resource"]}}',
		description:
			'Starts the workflow when a Money API charge or payout reaches a chosen status, by polling (for n8n instances webhooks cannot reach)',
		defaults: { name: 'Money Poll Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: MONEY_API_CREDENTIAL_TYPE, required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Charge', value: 'charge' },
					{ name: 'Charge and Payout', value: 'both' },
					{ name: 'Payout', value: 'payout' },
				],
				default: 'both',
			},
			statusesFilter,
			channelsFilter,
			{
				displayName: 'Backstop a Money Trigger',
				name: 'backstop',
				type: 'boolean',
				default: false,
				description:
					'Whether to hand each event no webhook delivery brought within the grace period to the Money Trigger of this workflow, instead of starting the workflow itself. The Money Trigger runs each event once, whichever way it came.',
			},
			{
				displayName:
					'This trigger starts no execution itself: the Money Trigger named below runs what it hands over, with source "poll". Use the same credential, Resource and Statuses on both, and keep the workflow published.',
				name: 'backstopNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { backstop: [true] } },
			},
			{
				displayName: 'Money Trigger Name',
				name: 'moneyTrigger',
				type: 'string',
				default: 'Money Trigger',
				required: true,
				displayOptions: { show: { backstop: [true] } },
				description: 'The name of the Money Trigger node in this workflow that runs the events',
			},
			{
				displayName: 'Grace Period (Minutes)',
				name: 'gracePeriodMinutes',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: DEFAULT_GRACE_MINUTES,
				displayOptions: { show: { backstop: [true] } },
				description:
					'How long after a poll first sees an event it waits for the webhook delivery before handing the event over. Every event runs within this period plus the poll interval of the poll that sees it.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Max Pages per Poll',
						name: 'maxPages',
						type: 'number',
						typeOptions: { minValue: 1 },
						default: 10,
						description: `Pages of ${LIST_PAGE_SIZE_MAX} transactions read per resource and poll. When a poll reaches it, the next poll resumes where it stopped.`,
					},
					{
						displayName: 'Max Re-Checks per Poll',
						name: 'maxChecksPerPoll',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 50,
						description:
							'Pending transactions re-read with Get per poll, to catch those that became final (the least recently checked first)',
					},
					{
						displayName: 'Max Watched Transactions',
						name: 'maxWatched',
						type: 'number',
						typeOptions: { minValue: 1 },
						default: DEFAULT_MAX_WATCHED,
						description:
							'Pending transactions the trigger remembers to report when they become final. Beyond it each poll fails with an error (nothing is skipped) until you raise it.',
					},
					{
						displayName: 'Overlap (Seconds)',
						name: 'overlapSeconds',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 120,
						description:
							'Each poll re-reads transactions created this long before the newest one already seen, so late-listed transactions are not missed; repeats are not emitted twice',
					},
				],
			},
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const settings = settingsOf(this);

		if (this.getMode() === 'manual') {
			const newest = await newestEvent(this, settings);
			return newest ? [this.helpers.returnJsonArray([newest])] : null;
		}

		const release = claimPoll(this);
		if (!release) {
			this.logger.warn('Money Poll Trigger skipped a poll: the previous poll of this trigger is still running', {
				node: this.getNode().name,
			});
			return null;
		}
		try {
			return await pollOnce(this, settings);
		} finally {
			release();
		}
	}
}

/**
 * One scheduled poll: reads, then saves the state and emits what is new itself (polling/emissions.ts),
 * or as a backstop hands it to the Money Trigger (polling/backstop.ts); so it returns null.
 */
async function pollOnce(context: IPollFunctions, settings: PollSettings): Promise<null> {
	const backstop = backstopSettingsOf(context);
	if (backstop) {
		const first = firstPollOf(context);
		const { state, memory } = backstopState(context);
		try {
			await handOver(context, state, await observeAll(context, state, settings), backstop, memory, first);
		} catch (error) {
			// Reported, never thrown (n8n fails a publish on a throw); nothing observed is kept
			// unless handed over: the next poll reads again from the state last kept.
			reportFailure(context, error);
		}
		return null;
	}
	const state = loadState(context);
	const again = emitEvents(context, state, await observeAll(context, state, settings));
	if (again > 0) {
		context.logger.warn('Money Poll Trigger emits again events n8n could not start an execution for', { node: context.getNode().name, events: again });
	}
	return null;
}

/** Reads what changed since the state's last poll into the state; returns the new events. */
async function observeAll(context: IPollFunctions, state: PollState, settings: PollSettings): Promise<MoneyEventItem[]> {
	forgetUnselected(state, settings.resources);
	const emitted: MoneyEventItem[] = [];
	const listed = new Set<string>();

	for (const resource of settings.resources) {
		if (typeof state.cursors[resource] !== 'number') {
			await initialiseResource(context, state, settings, resource, listed);
			continue;
		}
		emitted.push(...(await pollNewTransactions(context, state, settings, resource, listed)));
		if (resource === 'payout' && wantsReversals(settings)) {
			emitted.push(...(await recentReversals(context, state, settings, listed)));
		}
	}
	if (!wantsReversals(settings)) delete state.reversals;
	emitted.push(...(await recheckWatched(context, state, settings, listed)));
	forgetStatusesBeyond(state, MAX_REMEMBERED_STATUSES + listed.size + settings.maxChecks);
	if (state.watch.length > settings.maxWatched) throw tooManyToWatch(context, state.watch.length, settings);
	return emitted;
}
