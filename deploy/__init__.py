"""The managed install's systemd units and cron line for root's ``hookgate pull``, shipped inside the wheel."""
