select (
  select coalesce(json_arrayagg(json_array(`t2`.`item`)
      order by `t2`.`sort` is null, `t2`.`sort`
      limit ?), json_array())
  from `articles_sections` as `t2`
  where `t2`.`articles_id` = `t1`.`id`) as `c0`
from `articles` as `t1`
order by `t1`.`id`
limit ?
-- values: [100,100]
