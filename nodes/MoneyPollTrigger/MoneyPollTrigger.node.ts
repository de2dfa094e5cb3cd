import type { INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { MONEY_API_CREDENTIAL_TYPE } from '../api/routes';
import { LIST_PAGE_SIZE_MAX } from '../api/values';
import { channelsFilter, statusesFilter } from '../events/filterFields';
import type { MoneyEventItem } from '../events/item';
import { byOccurrence } from './polling/observe';
import { initialiseResource, pollNewTransactions, recentReversals, recheckWatched, sample, wantsReversals } from './polling/reads';
import { settingsOf } from './polling/settings';
import { loadState, saveState } from './polling/state';

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
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Max Pages per Poll',
						name: 'maxPages',
						type: 'number',
						typeOptions: { minValue: 1 },
						default: 10,
						description: `Pages of ${LIST_PAGE_SIZE_MAX} transactions read per resource and poll`,
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
			const found = await sample(this, settings);
			return found.length > 0 ? [this.helpers.returnJsonArray(found)] : null;
		}

		const staticData = this.getWorkflowStaticData('node');
		const state = loadState(staticData);
		const emitted: MoneyEventItem[] = [];
		const listed = new Set<string>();

		for (const resource of settings.resources) {
			if (typeof state.cursors[resource] !== 'number') {
				await initialiseResource(this, state, settings, resource);
				continue;
			}
			emitted.push(...(await pollNewTransactions(this, state, settings, resource, listed)));
			if (resource === 'payout' && wantsReversals(settings)) {
				emitted.push(...(await recentReversals(this, state, settings, listed)));
			}
		}
		emitted.push(...(await recheckWatched(this, state, settings, listed)));

		saveState(staticData, state);
		if (emitted.length === 0) return null;
		return [this.helpers.returnJsonArray(emitted.sort(byOccurrence))];
	}
}
