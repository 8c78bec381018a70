import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

/**
 * When n8n 2.41.1 saves a poll trigger's static data, under its default (legacy) scheduler: after the
 * activation poll (ActiveWorkflowManager.add, also at every start of n8n), and when a poll returns items
 * (the poll context's `__emit`, TriggerExecutionContextFactory.getExecutePollFunctions). A poll that
 * returns null saves nothing (PollTriggerExecutor): what it recorded lives only in the Workflow object
 * n8n keeps, and a restart loses it. A poll gets no other store (PollContext has no processed-items
 * helpers). Under the durable scheduler every poll gets static data of its own, read from the database,
 * and N8N_POLLER_DURABLE_CURSORS_ENABLED saves a poll that returns null (`__commitCursor`).
 */

/** The static data objects that a poll has had: n8n keeps one per activation of the workflow. */
const polled = new WeakSet<object>();

/** True for the first poll on this static data: the activation poll, or a poll of the durable scheduler. */
export function isFirstPollOn(staticData: IDataObject): boolean {
	const first = !polled.has(staticData);
	polled.add(staticData);
	return first;
}

/**
 * What a poll that starts nothing returns. One that recorded a company for the first time (a baseline,
 * silent unless Report First Sightings is on), in a poll n8n would not save, returns no items instead
 * of null: n8n then saves the static data, and runs the workflow with no items (no node after the
 * trigger runs). Else a change to that company before a restart of n8n would be taken for a first
 * sighting after it, and never reported.
 */
export function quietPollResult(
	recordedFirstSightings: boolean,
	firstPollOn: boolean,
): INodeExecutionData[][] | null {
	return recordedFirstSightings && !firstPollOn ? [[]] : null;
}
