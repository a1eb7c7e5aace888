/** Release id a platform adapter records when it published but could not tell which item it made. */
export const missingReleaseId = 'missing';
