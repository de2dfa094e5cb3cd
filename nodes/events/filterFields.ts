import type { INodeProperties } from 'n8n-workflow';

import { REVERSED_STATUS } from '../api/values';
import { channelOptions, statusOptions } from '../api/options';

/** The Statuses and Channels parameters of both triggers. */

export const statusesFilter: INodeProperties = {
	displayName: 'Statuses',
	name: 'statuses',
	type: 'multiOptions',
	options: statusOptions('both'),
	default: ['CANCELLED', 'COMPLETED', 'FAILED', REVERSED_STATUS],
	description: 'Status labels that start the workflow. Leave empty for every status.',
};

export const channelsFilter: INodeProperties = {
	displayName: 'Channels',
	name: 'channels',
	type: 'multiOptions',
	options: channelOptions(),
	default: [],
	description: 'Channels that start the workflow. Leave empty for every channel.',
};
