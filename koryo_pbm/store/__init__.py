"""The game folder: the signed game file, atomic writes, the lock and the shared-folder inbox.

Nothing here knows a game's rules; submodules are imported on demand to keep start-up fast.
"""
