/**
 * The parts of avatar-video/bullmq the relay runs, as a user of that entry would: the watch and delivery processors,
 * `watchJob`, and `deliveryJobId` (which finds a watch's delivery). The one file of cli/ that imports bullmq/.
 */
export { createDeliveryProcessor, createWatchProcessor, deliveryJobId, watchJob } from '../../bullmq/index.js';
