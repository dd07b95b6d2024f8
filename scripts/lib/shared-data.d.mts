export declare const SHARED_DATA: string;
export declare function sharedData(relative: string): string;
export declare function lookUpSharedData(where: { root: string | URL; ci: boolean }, relatives: string[]): boolean;
export declare function hasSharedData(...relatives: string[]): boolean;
