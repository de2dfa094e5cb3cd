import type { INodeProperties } from 'n8n-workflow';

import { MoneyPollTrigger } from '../../../nodes/MoneyPollTrigger/MoneyPollTrigger.node';
import { parameter, values } from '../support/properties';

describe('Money Poll Trigger description', () => {
	const { description } = new MoneyPollTrigger();

	it('is a polling trigger with the same filters as the webhook trigger', () => {
		expect(description.name).toBe('moneyPollTrigger');
		expect(description.polling).toBe(true);
		expect(description.inputs).toEqual([]);
		expect(description.webhooks).toBeUndefined();
		const properties = description.properties;
		expect(properties.map((property) => property.name)).toEqual(['resource', 'statuses', 'channels', 'backstop', 'backstopNotice', 'moneyTrigger', 'gracePeriodMinutes', 'options']);
		expect(parameter(properties, 'backstop').default).toBe(false);
		for (const name of ['backstopNotice', 'moneyTrigger', 'gracePeriodMinutes']) expect(parameter(properties, name).displayOptions).toEqual({ show: { backstop: [true] } });
		expect(values(parameter(properties, 'resource'))).toEqual(['charge', 'both', 'payout']);
		expect(parameter(properties, 'resource').default).toBe('both');
		expect(parameter(properties, 'statuses').default).toEqual(['CANCELLED', 'COMPLETED', 'FAILED', 'REVERSED']);
		const options = parameter(properties, 'options').options as INodeProperties[];
		expect(options.map((option) => option.name).sort()).toEqual(['maxChecksPerPoll', 'maxPages', 'maxWatched', 'overlapSeconds']);
	});
});
