// The activity of the bench's floor loop: a regular activity that does nothing, standing for the
// connector's projection write, which the service keeps a regular activity (workflows/
// activity-proxies.ts) so that MongoDB never gets ahead of Temporal.
export const floorActivities = {
  async recordNothing(): Promise<void> {},
};
