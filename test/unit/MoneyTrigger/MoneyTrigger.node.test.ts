import type { INodeProperties } from 'n8n-workflow';

import { MoneyTrigger } from '../../../nodes/MoneyTrigger/MoneyTrigger.node';
import { parameter, values } from '../support/properties';

describe('Money Trigger description', () => {
	const node = new MoneyTrigger();
	const { description } = node;

	it('is a webhook trigger that answers on receipt with an explicit (empty) body', () => {
		expect(description.name).toBe('moneyTrigger');
		expect(description.displayName).toContain('Trigger');
		expect(description.inputs).toEqual([]);
		expect(description.group).toEqual(['trigger']);
		expect(description.usableAsTool).toBeUndefined();
		expect(description.webhooks).toEqual([
			{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', responseData: 'noData', path: 'money' },
		]);
		expect(typeof node.webhookMethods.default.checkExists).toBe('function');
		expect(typeof node.webhookMethods.default.create).toBe('function');
		expect(typeof node.webhookMethods.default.delete).toBe('function');
		expect(description.credentials).toEqual([{ name: 'moneyApi', required: true }]);
	});

	it('has versions 2 (1.0.0\'s workflows) and 2.1 (new ones), never 1 (n8n evaluates an expression for every delivery to a webhook node of version 1)', () => {
		expect(description.version).toEqual([2, 2.1]);
		expect(description.defaultVersion).toBe(2.1);
	});

	it('speaks n8n 2.41 in the trigger panel, to a user of the real API: no sandbox commands, back to the Production URL after testing, the horizon stated', () => {
		const panel = description.triggerPanel as { executionsHelp: { inactive: string; active: string }; activationHint: string };
		const texts = [panel.executionsHelp.inactive, panel.executionsHelp.active, panel.activationHint, description.activationMessage ?? ''];
		for (const text of texts) {
			expect(text).not.toMatch(/Listen for test event|\bactivate|_control|sandbox/i);
		}
		expect(panel.executionsHelp.inactive).toContain('Execute step');
		expect(panel.executionsHelp.inactive).toMatch(/back to the <b>Production URL<\/b>/);
		expect(panel.executionsHelp.inactive).toMatch(/saves nothing while you test/);
		expect(panel.executionsHelp.active).toMatch(/50,000 transactions/);
		expect(panel.executionsHelp.active).toMatch(/72 hours/);
		expect(panel.executionsHelp.active).toMatch(/forgot runs again/);
		expect(panel.activationHint).toMatch(/publish it/);
		expect(panel.activationHint).toContain('Production URL');
		expect(description.activationMessage).toContain('Production URL');
	});

	it('exposes the parameters other workflows are built with', () => {
		const properties = description.properties;
		expect(properties.map((property) => property.name)).toEqual([
			'dashboardNotice',
			'resources',
			'statuses',
			'channels',
			'confirmWithApi',
			'options',
		]);
		expect(values(parameter(properties, 'resources'))).toEqual(['charge', 'payout']);
		expect(parameter(properties, 'resources').default).toEqual(['charge', 'payout']);
		expect(values(parameter(properties, 'statuses')).sort()).toEqual(['CANCELLED', 'COMPLETED', 'FAILED', 'PENDING', 'REVERSED']);
		expect(parameter(properties, 'statuses').default).toEqual(['CANCELLED', 'COMPLETED', 'FAILED', 'REVERSED']);
		expect(values(parameter(properties, 'channels'))).toEqual(['platform', 'psp-a-tg', 'psp-b-tg']);
		expect(parameter(properties, 'confirmWithApi').default).toBe(false);
		const options = parameter(properties, 'options').options as INodeProperties[];
		expect(options.map((option) => option.name).sort()).toEqual(['maxBodySizeKb', 'signatureScheme', 'signedPath']);
		expect(values(parameter(options, 'signatureScheme')).sort()).toEqual(['body-hmac', 'either', 'request-style']);
		expect(parameter(options, 'signatureScheme').default).toBe('either');
	});
});
