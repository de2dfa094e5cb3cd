import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

export const resourceOptions: INodePropertyOptions[] = [
	{ name: 'Charge', value: 'charge' },
	{ name: 'Payout', value: 'payout' },
];

export const statusOptions: INodePropertyOptions[] = [
	{ name: 'Cancelled', value: 'CANCELLED' },
	{ name: 'Completed', value: 'COMPLETED' },
	{ name: 'Failed', value: 'FAILED' },
	{ name: 'Pending', value: 'PENDING' },
	{ name: 'Reversed (Payouts)', value: 'REVERSED' },
];

export const channelOptions: INodePropertyOptions[] = [
	{ name: 'Platform', value: 'platform' },
	{ name: 'PSP A (Togo)', value: 'psp-a-tg' },
	{ name: 'PSP B (Togo)', value: 'psp-b-tg' },
];

export const statusesFilter: INodeProperties = {
	displayName: 'Statuses',
	name: 'statuses',
	type: 'multiOptions',
	options: statusOptions,
	default: ['CANCELLED', 'COMPLETED', 'FAILED', 'REVERSED'],
	description: 'Status labels that start the workflow. Leave empty for every status.',
};

export const channelsFilter: INodeProperties = {
	displayName: 'Channels',
	name: 'channels',
	type: 'multiOptions',
	options: channelOptions,
	default: [],
	description: 'Channels that start the workflow. Leave empty for every channel.',
};
