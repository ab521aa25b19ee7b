"""Fair play with a person in the loop: visitors' reports, the operators' queue of games that wait
for a decision, the operators' actions with their audit log, and the operators' sign-in.

The pages (``site/mod.py``), the report route (``api/routes/reports.py``) and the command
line (``game2048 mod``, ``moderation/command.py``) call these functions; none decides alone.
"""
